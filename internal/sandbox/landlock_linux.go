package sandbox

import (
	"fmt"
	"os"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// maxABI is the newest Landlock ABI whose rights the sandbox handles.
// ABI 8 adds nothing it uses; ABI 9 restricts connecting to Unix sockets
// by path, which would need rules of its own (and testing on such a
// kernel) before it can be turned on.
const maxABI = 7

// abiConfigs are go-landlock's configurations for ABI 1 to maxABI.
var abiConfigs = [maxABI + 1]landlock.Config{
	{}, landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6, landlock.V7,
}

// devices are the device files a command may read and write (and use
// ioctls on): what shells, terminals and ordinary programs open.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx"}

// landlockRuleset is a Landlock ruleset, built but not yet enforced.
type landlockRuleset struct {
	fd    int
	flags uint32
}

// landlockRules builds the ruleset of p for the kernel's ABI (at most
// maxABI), without best effort: what is handled is exactly the rights of
// that ABI, so what is in force is known. Every file may be read and
// executed; the writable paths (the temporary directory, and in
// workspace-write the writable roots), the devices, the sandbox's own
// /dev/pts (see privatePts) and a private /dev/shm may be written too. The network is left to the network
// namespace; the IPC scopes (ABI 6) keep the command from signalling
// processes outside the sandbox and, when the network is on, from
// connecting to abstract Unix sockets outside it.
func landlockRules(p *Policy, privateShm bool) (*landlockRuleset, error) {
	abi, err := llsys.LandlockGetABIVersion()
	if err != nil || abi < minABI {
		return nil, fmt.Errorf("landlock ABI %d (err %v): the sandbox needs %d or later", abi, err, minABI)
	}
	cfg := abiConfigs[min(abi, maxABI)]
	cfg.HandledAccessNet = 0
	handled := cfg.HandledAccessFS
	dev := landlock.AccessFSSet(llsys.AccessFSReadFile|llsys.AccessFSWriteFile|llsys.AccessFSTruncate|llsys.AccessFSIoctlDev) & handled
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.PathAccess(dev, devices...).IgnoreIfMissing(),
		landlock.PathAccess(dev|landlock.AccessFSSet(llsys.AccessFSReadDir)&handled, "/dev/pts").IgnoreIfMissing(),
	}
	var dirs, files []string
	writable := writablePaths(p)
	if privateShm {
		writable = append(writable, "/dev/shm")
	}
	for _, w := range writable {
		if fi, err := os.Stat(w); err == nil && fi.IsDir() {
			dirs = append(dirs, w)
		} else if err == nil {
			files = append(files, w)
		}
	}
	if len(dirs) > 0 {
		rules = append(rules, landlock.RWDirs(dirs...).WithRefer().IgnoreIfMissing())
	}
	if len(files) > 0 {
		rules = append(rules, landlock.RWFiles(files...).IgnoreIfMissing())
	}
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return nil, fmt.Errorf("build the landlock ruleset: %w", err)
	}
	return &landlockRuleset{fd: fd, flags: flags}, nil
}

// restrictThread enforces the ruleset on the calling thread, which must
// be locked to its goroutine and have no_new_privs set, and closes it.
func (r *landlockRuleset) restrictThread() error {
	err := llsys.LandlockRestrictSelf(r.fd, r.flags)
	// The domain holds what it needs; the descriptor only served to make it.
	_ = unix.Close(r.fd)
	if err != nil {
		return fmt.Errorf("enter the landlock domain: %w", err)
	}
	return nil
}
