	.arch armv8-a
	.text
	.global f
f:
	ldr	x0, [sp, 8]
	ret
