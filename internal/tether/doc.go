// Package tether makes the processes rein starts die with it, however it
// dies: a kill -9, a crash, an out-of-memory kill. Without it a command
// that was running when rein died (`sleep 30`, a dev server, an MCP
// server that ignores the end of its input) lives on under PID 1.
//
// # How
//
// rein holds a lifeline: a pipe whose write end it alone has (close on
// exec, never written, never closed), made on first use. A helper that
// supervises a process rein started gets the read end, and watches it
// ([Watch]): the kernel closes the write end when rein's process ends, for
// whatever reason, so the read end then reads end of file, and the helper
// kills what it supervises. Two helpers do:
//
//   - the sandbox's (internal/sandbox, `rein sandbox-exec`), PID 1 of the
//     command's PID namespace, which kills every process of the namespace,
//     puts back what the command planted in a protected place, and exits;
//   - this package's (`rein tether-exec`), for what runs without a sandbox
//     (a command with --sandbox off or approved to run outside it, an MCP
//     server, a hook): [Wrap] makes the command start this very executable
//     again (from /proc/self/exe) as the helper, the leader of a process
//     group of its own, which starts the program in that group and, when
//     rein dies, kills the group (itself with it).
//
// A program may end because rein is dying (its input, a pipe from rein,
// ended; its output broke) a moment before the lifeline is closed: the
// kernel closes a process's files only after each of its threads has
// begun to exit. So when the program ends, the tether's helper also asks
// whether rein is exiting (its /proc stat: a zombie, or the PF_EXITING
// flag) or gone (the helper has another parent), and kills the group if
// so; a live rein kills what is left of the group itself, once the helper
// has exited.
//
// # Why not a parent-death signal
//
// prctl(PR_SET_PDEATHSIG) is tied to the thread that forked the child,
// not to the process: Go forks from whatever thread the calling goroutine
// runs on, and the signal comes when that thread ends, which the Go
// runtime does whenever a goroutine ends while locked to its thread
// (go.dev/issue/27505), rein alive. In a new PID namespace the check Go
// makes after setting it (is the parent still the one that forked?)
// always fails, getppid being 0 there, and a namespace's PID 1 ignores
// any signal but SIGKILL until its handlers are installed, so a death in
// the first moments of the helper would go unseen; SIGKILL would come
// through, but it would leave no time to put protected files back. An end
// of file is level-triggered (a helper that starts watching after rein
// died sees it at once), belongs to the process, not a thread, and asks
// nothing of the kernel's signal rules.
//
// # What holds, and what does not
//
//   - A sandboxed command, and everything it started (background jobs,
//     double forks, setsid daemons), dies with rein: they all live in the
//     helper's PID namespace.
//   - A tethered command and everything in its process group die with
//     rein. What left the group (setsid, a daemon's double fork) does not:
//     without a sandbox, only the group is rein's to kill, as when the
//     command ends while rein lives.
//   - The helper reports the program's exit status as its own, 128+N for
//     a program killed by signal N (as a shell does), and 126 (127 for a
//     missing program) when it cannot start it, with the reason on
//     standard error.
//   - The tether's helper costs a start of rein's executable per command
//     (BenchmarkStartTrue: 2 to 3 ms on a busy two-core machine), on top
//     of the program's.
//   - Only Linux has the helper: elsewhere Wrap leaves the command as it
//     is, and what it runs can outlive rein.
package tether
