/* SPDX-License-Identifier: MIT */
/* RISC-V virt start-up (M-mode, hart 0 only): stack, trap vector, bss
 * cleared, main. docs/qemu.md. */
	.section .text.start
	.globl _start
_start:
	csrr	t0, mhartid
	bnez	t0, park
	la	sp, _stack_top
	la	t0, rv_trap
	csrw	mtvec, t0
	la	t0, _bss_start
	la	t1, _bss_end
1:	bgeu	t0, t1, 2f
	sw	zero, 0(t0)
	addi	t0, t0, 4
	j	1b
2:	call	main
	li	a0, 1
	call	bsp_exit
park:
	wfi
	j	park
