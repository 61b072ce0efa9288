// Package tethertest finds the processes a test started, by a marker in
// their arguments, for the tests that check that nothing outlives rein
// (Linux: it reads /proc).
package tethertest

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// markers makes each Marker unique within the process.
var markers atomic.Uint32

// Marker returns an argument for sleep that no other process has: a
// number of seconds (between 1,000 and 2,000, with nine decimals) made of
// this process's id, the time and a counter. `sleep MARKER` runs for
// longer than any test, and Processes finds it.
func Marker() string {
	return fmt.Sprintf("%d.%03d%06d", 1000+os.Getpid()%1000, markers.Add(1)%1000, time.Now().Nanosecond()/1000)
}

// Processes returns the ids of the live processes (zombies excluded) one
// of whose arguments is marker.
func Processes(marker string) []int {
	return find(func(arg []byte) bool { return string(arg) == marker })
}

// Mentioning returns the ids of the live processes (zombies excluded) one
// of whose arguments holds marker: `sleep MARKER`, and the shell and the
// helpers whose command lines hold it.
func Mentioning(marker string) []int {
	return find(func(arg []byte) bool { return bytes.Contains(arg, []byte(marker)) })
}

// find returns the ids of the live processes one of whose arguments
// matches.
func find(match func(arg []byte) bool) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		for arg := range bytes.SplitSeq(b, []byte{0}) {
			if match(arg) {
				if Alive(pid) {
					out = append(out, pid)
				}
				break
			}
		}
	}
	return out
}

// Alive says whether process pid exists and is not a zombie.
func Alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command's name in parentheses, which may
	// itself hold spaces and parentheses.
	_, rest, _ := strings.Cut(string(b[bytes.LastIndexByte(b, ')')+1:]), " ")
	return rest != "" && rest[0] != 'Z' && rest[0] != 'X'
}

// WaitGone waits until no live process mentions marker in its arguments
// (see Mentioning), at most for d (a bound on a hang, not a timing
// assertion), and returns those still running then.
func WaitGone(marker string, d time.Duration) []int {
	deadline := time.Now().Add(d)
	for {
		left := Mentioning(marker)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(10 * time.Millisecond)
	}
}
