//go:build linux

package checkpoint

import "syscall"

// noatime is the open flag that leaves a file's access time as it was:
// reading a store (a fork's shares its parent's objects, hard-linked)
// then writes nothing to the disk. Linux allows it only to the file's
// owner; openNoPoll retries without it for anyone else.
const noatime = syscall.O_NOATIME
