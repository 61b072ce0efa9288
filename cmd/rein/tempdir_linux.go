package main

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// thisProcess is this process as the owner of its temporary directories.
func thisProcess() owner {
	o := owner{pid: os.Getpid(), ns: pidNamespace()}
	o.start, _ = startTime(o.pid)
	return o
}

// gone says whether o's process has surely ended: it is of this PID
// namespace, and no process has its pid, or the one that has was started
// at another time (the pid was given again). Anything that cannot be
// read counts as alive.
func (o owner) gone() bool {
	if o.ns == 0 || o.ns != self().ns || o.start == 0 {
		return false
	}
	start, err := startTime(o.pid)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	return err == nil && start != o.start
}

// pidNamespace is the inode of this process's PID namespace, 0 when it
// cannot be read.
func pidNamespace() uint64 {
	link, err := os.Readlink("/proc/self/ns/pid") // pid:[4026531836]
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(link, "pid:["), "]"), 10, 64)
	return n
}

// startTime is when process pid started, in clock ticks after boot: the
// 22nd field of /proc/PID/stat. An error wraps fs.ErrNotExist when there
// is no such process.
func startTime(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The fields after the command's name, which is in parentheses and
	// may itself hold spaces and parentheses: state is the 3rd field,
	// the start time the 22nd.
	i := strings.LastIndexByte(string(b), ')')
	fields := strings.Fields(string(b[i+1:]))
	if i < 0 || len(fields) < 20 {
		return 0, errors.New("an unreadable /proc/" + strconv.Itoa(pid) + "/stat")
	}
	return strconv.ParseUint(fields[19], 10, 64)
}
