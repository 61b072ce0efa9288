//go:build !linux

package checkpoint

// noatime is 0 where there is no O_NOATIME.
const noatime = 0
