/* SPDX-License-Identifier: MIT */
#ifndef HETRACE_PORT_H
#define HETRACE_PORT_H

/*
 * What the runtime needs from the compiler and the platform: the byte
 * order, a compiler barrier and a branch hint. Everything here has a
 * plain C99 fallback; a port for a compiler that has none of the
 * built-ins below defines HT_PORT_LITTLE_ENDIAN or HT_PORT_BIG_ENDIAN
 * and, if it has one, HT_PORT_COMPILER_BARRIER() before including any
 * hetrace header.
 */

#include <stdint.h>

/* Byte order of the target. */
#if defined(HT_PORT_LITTLE_ENDIAN)
#define HT_NATIVE_LITTLE_ENDIAN 1
#elif defined(HT_PORT_BIG_ENDIAN)
#define HT_NATIVE_LITTLE_ENDIAN 0
#elif defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) &&           \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HT_NATIVE_LITTLE_ENDIAN 1
#elif defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) &&              \
    __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HT_NATIVE_LITTLE_ENDIAN 0
#elif defined(_MSC_VER) || defined(__i386__) || defined(__x86_64__)
#define HT_NATIVE_LITTLE_ENDIAN 1
#else
#error                                                                         \
    "hetrace: unknown byte order: define HT_PORT_LITTLE_ENDIAN or HT_PORT_BIG_ENDIAN"
#endif

/*
 * Compiler barrier: the compiler may not move memory accesses across
 * it. The tracing section guard needs it: the stores that fill an event
 * record must be done before the guard is released, or an interrupt that
 * traces would see a free guard and a half-written record.
 */
#if defined(HT_PORT_COMPILER_BARRIER)
#define HT_COMPILER_BARRIER() HT_PORT_COMPILER_BARRIER()
#elif defined(__GNUC__) || defined(__clang__)
#define HT_COMPILER_BARRIER() __asm__ __volatile__("" : : : "memory")
#else
/*
 * An opaque call is a barrier for any compiler that does not see the
 * callee: ht_port_barrier() is in runtime/port.c.
 */
#define HT_COMPILER_BARRIER() ht_port_barrier()
#endif

/* Empty; defined out of line so that a call to it is a barrier. */
void ht_port_barrier(void);

/*
 * Memory barrier: orders this core's memory accesses as seen by another
 * core or process (the packet ring and the sync mailbox in shared
 * memory). A port for a compiler without the GCC/clang built-in defines
 * HT_PORT_MEMORY_BARRIER(); the fallback, a compiler barrier, is only
 * correct when producer and consumer share one core's view of memory.
 */
#if defined(HT_PORT_MEMORY_BARRIER)
#define HT_MEMORY_BARRIER() HT_PORT_MEMORY_BARRIER()
#elif defined(__GNUC__) || defined(__clang__)
#define HT_MEMORY_BARRIER() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#else
#define HT_MEMORY_BARRIER() HT_COMPILER_BARRIER()
#endif

/* Branch hint for the fast path. */
#if defined(__GNUC__) || defined(__clang__)
#define HT_LIKELY(x) __builtin_expect(!!(x), 1)
#define HT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define HT_LIKELY(x) (x)
#define HT_UNLIKELY(x) (x)
#endif

/*
 * The tracing functions are inlined at every call site: the fast path is
 * a few stores, smaller than a call with its argument shuffling. Define
 * HT_PORT_NO_FORCE_INLINE to leave the choice to the compiler (for
 * instance when optimizing for size with many tracepoints).
 */
#if !defined(HT_PORT_NO_FORCE_INLINE) &&                                       \
    (defined(__GNUC__) || defined(__clang__))
#define HT_TRACE_INLINE static inline __attribute__((always_inline))
#else
#define HT_TRACE_INLINE static inline
#endif

#endif
