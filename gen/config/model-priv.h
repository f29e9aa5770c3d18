/* SPDX-License-Identifier: MIT */
#ifndef HT_GEN_MODEL_PRIV_H
#define HT_GEN_MODEL_PRIV_H

#include "model.h"

/* Releases a field type and everything under it (NULL is fine). */
void ht__ft_destroy(struct ht_ft *ft);

#endif
