/** The kernel API version plugins declare a range against (`kernel: "^1.0.0"`). */
export const KERNEL_VERSION = '1.0.0';
