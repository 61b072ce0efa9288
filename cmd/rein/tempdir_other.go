//go:build !linux

package main

import (
	"errors"
	"os"
	"syscall"
)

// thisProcess is this process as the owner of its temporary directories:
// only its pid is known here.
func thisProcess() owner {
	return owner{pid: os.Getpid()}
}

// gone says whether no process has o's pid. A pid given again to another
// process counts as alive: the directory stays, which is the safe side.
func (o owner) gone() bool {
	return o.ns == 0 && errors.Is(syscall.Kill(o.pid, 0), syscall.ESRCH)
}
