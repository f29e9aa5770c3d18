/* SPDX-License-Identifier: MIT */
#ifndef DEMO_UTIL_H
#define DEMO_UTIL_H

unsigned util_rand(void);
unsigned util_checksum(const int *v, int n);

#endif
