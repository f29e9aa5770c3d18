/* SPDX-License-Identifier: MIT */
/*
 * The out-of-line compiler barrier for compilers without GCC's asm
 * statement (include/hetrace/port.h): a call the compiler cannot see
 * into orders the memory accesses around it.
 */
#include "hetrace/port.h"

void ht_port_barrier(void)
{
}
