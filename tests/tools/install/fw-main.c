/* SPDX-License-Identifier: MIT */
/*
 * The smallest firmware for QEMU mps2-an385 (Cortex-M3) built from an
 * installed hetrace (tests/tools/test-install.sh): a vector table, a
 * reset handler, events written into one packet, and a semihosting exit
 * whose status says whether the packet holds them (the test's check that
 * the installed runtime and generated code work on the target).
 */
#include <stddef.h>
#include <stdint.h>

#include "fw-trace.h"

#define PACKET_SIZE 512
#define NR_TICKS 10

extern uint32_t _data_start[], _data_end[], _data_load[];
extern uint32_t _bss_start[], _bss_end[], _stack_top[];
void fw_reset(void);

static uint8_t packet[PACKET_SIZE];
static uint32_t now;

/* The freestanding C library functions the compiler may call. */
void *memcpy(void *dst, const void *src, size_t n)
{
	uint8_t *d = dst;
	const uint8_t *s = src;

	while (n--) {
		*d++ = *s++;
	}
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	uint8_t *d = dst;

	while (n--) {
		*d++ = (uint8_t)c;
	}
	return dst;
}

static uint32_t clock_get(void *data)
{
	(void)data;
	return now += 100;
}

static int never_full(void *data)
{
	(void)data;
	return 0;
}

static void on_open(void *data)
{
	(void)data;
}

static void on_close(void *data)
{
	(void)data;
}

/* SYS_EXIT: ADP_Stopped_ApplicationExit (QEMU exits 0) or
 * ADP_Stopped_RunTimeErrorUnknown (QEMU exits 1). */
static void semihosting_exit(int ok)
{
	register uint32_t op __asm__("r0") = 0x18;
	register uint32_t why __asm__("r1") = ok ? 0x20026 : 0x20023;

	__asm__ volatile("bkpt 0xab" : : "r"(op), "r"(why) : "memory");
	for (;;) {
	}
}

static int run(void)
{
	struct fw_platform_callbacks cbs = {clock_get, never_full, on_open,
					    on_close};
	struct fw_core_ctx ctx;
	uint32_t i, magic, content_bits;

	fw_init(&ctx, packet, PACKET_SIZE, cbs, NULL);
	fw_core_open_packet(&ctx);
	for (i = 0; i < NR_TICKS; i++) {
		fw_core_trace_tick(&ctx, i);
	}
	fw_core_trace_sync_ack(&ctx, 7);
	fw_core_close_packet(&ctx);
	/* the packet header's magic, and content_size (64 bits at byte
	 * 20, little-endian: its low half) past the 64-byte header */
	memcpy(&magic, packet, sizeof(magic));
	memcpy(&content_bits, packet + 20, sizeof(content_bits));
	return magic == 0xc1fc1fc1u && content_bits > 64 * 8;
}

void fw_reset(void)
{
	uint32_t *s = _data_load, *d = _data_start;

	while (d < _data_end) {
		*d++ = *s++;
	}
	for (d = _bss_start; d < _bss_end; d++) {
		*d = 0;
	}
	semihosting_exit(run());
}

__attribute__((section(".vectors"),
	       used)) static void (*const vectors[2])(void) = {
    (void (*)(void))_stack_top, fw_reset};
