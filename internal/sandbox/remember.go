package sandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/rein-agent/rein/internal/atomicfile"
)

// probeState is this process's answer to whether commands can be
// sandboxed: asked of the machine once ([Probe]), or read from where an
// earlier rein remembered it ([ProbeRemembered]), whichever comes first.
var probeState memory

// memory is an answer to whether commands can be sandboxed, and where it
// was remembered.
type memory struct {
	once   sync.Once
	status Status
	// file is the file the answer was read from, "" when this process
	// probed: a start that fails under a remembered answer forgets it.
	// mu guards it once the answer is decided.
	mu   sync.Mutex
	file string
}

// remembered is what ProbeRemembered keeps in its file: the answer and
// what it holds for.
type remembered struct {
	// Key is what the answer depends on (see probeKey).
	Key    string `json:"key"`
	Status Status `json:"status"`
}

// rememberedLimit bounds what ProbeRemembered reads of its file: a few
// hundred bytes are written.
const rememberedLimit = 64 << 10

// ProbeRemembered is [Probe], with the answer remembered in file (in
// rein's state directory, which sandboxed commands cannot see) so that a
// later start does not probe again: on Linux a probe starts the helper
// once, which costs milliseconds of every start. The answer holds for
// what it depends on (see probeKey: the kernel, its Landlock ABI, the
// sysctls that allow user namespaces, this user namespace, this
// executable's file, the user); when any of those changed, or the file
// is missing, unreadable, or not what ProbeRemembered writes, it probes
// and writes the file again (an error writing it is ignored: the next
// start probes again). Only an available sandbox is remembered: an
// unavailable one is probed every time, so that a passing failure is not
// kept. The remembered answer is never trusted to run a command without
// a sandbox: if the sandbox cannot be set up after all, [Start] fails
// (the command does not run) with an error that says so, and forgets the
// file. Like Probe, the first of the two a process calls decides the
// answer for the rest of the process. Safe for concurrent use.
func ProbeRemembered(file string) Status {
	probeState.once.Do(func() {
		key := platform.probeKey()
		if key == "" {
			probeState.status = platform.probe()
			return
		}
		if st, ok := readRemembered(file, key); ok {
			probeState.status, probeState.file = st, file
			return
		}
		probeState.status = platform.probe()
		if probeState.status.Available {
			writeRemembered(file, key, probeState.status)
		}
	})
	return probeState.status
}

// readRemembered returns the answer file holds for key, if it holds an
// available sandbox for exactly that key.
func readRemembered(file, key string) (Status, bool) {
	f, err := os.Open(file)
	if err != nil {
		return Status{}, false
	}
	defer func() { _ = f.Close() }() // read only: nothing to lose
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return Status{}, false
	}
	data, err := io.ReadAll(io.LimitReader(f, rememberedLimit))
	if err != nil {
		return Status{}, false
	}
	var r remembered
	if json.Unmarshal(data, &r) != nil || r.Key != key || !r.Status.Available || r.Status.Backend != backendName || r.Status.Reason != "" {
		return Status{}, false
	}
	return r.Status, true
}

// writeRemembered writes st, the answer for key, to file, making its
// directory; a failure is ignored (the next start probes again).
func writeRemembered(file, key string, st Status) {
	data, err := json.Marshal(remembered{Key: key, Status: st})
	if err != nil || os.MkdirAll(filepath.Dir(file), 0o700) != nil {
		return
	}
	_ = atomicfile.Write(file, data, 0o600) // a cache: an error costs one probe
}

// forget is called when a sandboxed command could not be started: if the
// answer was remembered, the file is removed, so that the next start
// probes, and the error says so.
func forget(err error) error { return probeState.forget(err) }

func (m *memory) forget(err error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.file == "" {
		return err
	}
	file := m.file
	_ = os.Remove(file) // gone already is as good
	m.file = ""
	return fmt.Errorf("%w (rein remembered a sandbox on this machine in %s, which no longer holds: it is forgotten, and the next start checks again)",
		err, file)
}

// ended is told a sandboxed command's exit code (see [Process.Wait]):
// the helper's code for a failed set-up, under a remembered answer, has
// probe asked once, and the memory forgotten if it says no.
func (m *memory) ended(code int, probe func() Status) {
	if code != helperFailed {
		return
	}
	m.mu.Lock()
	file := m.file
	m.file = "" // asked once per process
	m.mu.Unlock()
	if file != "" && !probe().Available {
		_ = os.Remove(file) // gone already is as good
	}
}
