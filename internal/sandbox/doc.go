// Package sandbox runs the processes a tool starts inside an OS sandbox:
// what a command may write, read and reach is the kernel's business, not
// the permission rules' (which are a policy, not a boundary).
//
// A [Policy] says what a command may do; [Wrap] rewrites an exec.Cmd to
// run under it; [Probe] says whether this machine can sandbox at all, and
// if not why; [Explain] turns the errors a refused command printed into
// sentences for the model and the person. [Protected], [DefaultWritable]
// and [DefaultDenyRead] make the usual lists of paths.
//
// # How, on Linux
//
// Wrap makes the command start this very executable again (re-run from
// /proc/self/exe) as the helper, `rein sandbox-exec POLICY -- PROGRAM
// ARGS...`, in new user, mount and PID namespaces, and a new network
// namespace when the network is off. The helper runs as the user (the
// user namespace maps the user's own ids), keeping a few capabilities in
// the namespaces it owns. It is PID 1 of its PID namespace (started any
// other way, by hand or by a command, it refuses to run: from any other
// process, "kill every process of the namespace" would be every process
// of the user), and
//
//  1. makes the mounts private, mounts a /proc of its own and a fresh
//     /dev/shm (best effort), mounts the read-only paths read-only over
//     themselves, pins the directories above them (bind-mounts them over
//     themselves, so that `mv .git elsewhere` fails), covers the hidden
//     paths (an empty read-only tmpfs of mode 000 over a directory,
//     /dev/null on a mount without devices over a file);
//  2. brings the loopback of the new network namespace up;
//  3. on one OS thread, drops every capability (the bounding set too),
//     sets no_new_privs and enters a Landlock domain: read and execute
//     everywhere, write only under the writable roots, the private
//     temporary directory, /dev/shm and a few devices (/dev/null,
//     /dev/zero, /dev/full, /dev/random, /dev/urandom, /dev/tty,
//     /dev/ptmx, /dev/pts); the IPC scopes of Landlock ABI 6 too;
//  4. starts the program from that thread, so that it inherits all of it;
//  5. reaps every process that ends, and once the program has exited
//     kills every process left in the namespace, puts back what the
//     program planted where a protected file was missing, and exits with
//     the program's status (128+N for signal N);
//  6. watches rein's lifeline (package tether: a pipe whose other end only
//     rein holds, passed to the helper as an extra descriptor that the
//     program does not get), so that when rein dies, by kill -9 too, it
//     kills every process of the namespace at once and then does as in
//     step 5. A parent-death signal would not do: it follows the thread
//     that forked the helper rather than rein's process, and PID 1 of a
//     namespace drops it in the moment before its handlers are set (the
//     package documentation of tether has the details).
//
// # Started ahead
//
// Most of a sandboxed command's start is the helper's own (the
// namespaces, rein's start-up, the mounts), and depends only on the
// policy. [StartProcess] therefore starts, once a sandboxed command has
// ended, the helper of the next one: it does steps 1 and 2 and the first
// half of step 3 (the restricted thread, the Landlock domain), leaving out
// the placeholders, then waits on a socket whose other end only rein
// holds. The next command with the same policy and process attributes
// is sent to it (argv, environment, working directory, and its standard
// files as descriptors); the helper then makes the placeholders (they
// never sit in .git between commands), checks that no mount of its own
// was lifted meanwhile (a protected or hidden file replaced outside
// detaches the mount over it: the mount table changes), starts the
// program, and reports its status once everything in the namespace is
// dead and the placeholders are gone, before its own exit. rein uses it
// only when what its mounts were made from is unchanged: the policy as
// Wrap makes it at that command (the hidden paths that exist, the
// sockets under /tmp) and the type, device and inode of every path the
// policy names and of their parents; otherwise, or when the helper is
// dead or stale, it is discarded and the command starts as above. A
// waiting helper watches the lifeline as any helper does, and reads end
// of file on its socket when rein ends or discards it: it then runs
// nothing and exits. [Close] ends it.
//
// The helper is run by this package's init function, before the rest of
// the program is initialised; Landlock rights are those of the kernel's
// ABI (from 2 on, at most 7), never a silent best effort, and [Status]
// says which ABI is in force.
//
// # What is contained
//
//   - Writes: nothing outside the writable roots and the temporary
//     directory (workspace-write), or outside the temporary directory
//     (read-only). Inside the roots, .git/config, config.worktree,
//     commondir, .git/hooks, core.hooksPath's directory, submodules'
//     config and hooks, and .rein stay as they are: a missing protected
//     directory is made before it is mounted read-only (and left, empty,
//     afterwards: removing it could unmount the protection of another
//     session sandboxed in the same workspace); a missing commondir or
//     config.worktree is made with harmless content (a commondir of ".",
//     an empty config.worktree: git reads them as missing), mounted
//     read-only while the command runs, and removed afterwards; any other
//     missing protected file (a submodule's gitfile) cannot be mounted,
//     so if the command creates it, it is removed when the command ends;
//     until then, a git run outside the sandbox may read it. Two sessions
//     sandboxed in the same workspace share those placeholders, and the
//     first to end removes them, which lifts the other's mount: from then
//     on the other's command can plant one, removed when it ends. A
//     submodule's and a linked worktree's .git file is read-only too.
//   - Reads: everything but the hidden paths (credential stores, rein's
//     configuration and sessions, the sockets of programs that would run
//     commands outside: the user's runtime directory, the ssh agent, the
//     system bus, Docker's socket, tmux's, screen's and X11's). /dev/pts
//     is a devpts of the command's own: the user's terminals are out of
//     reach.
//   - The network, when off: the command has a loopback of its own and
//     nothing else; servers on the host's 127.0.0.1 cannot be reached,
//     and no name resolves.
//   - Processes: the command sees only its own (/proc is its PID
//     namespace's), cannot trace or signal rein or anything outside, has
//     no capability and cannot gain one (setuid programs such as sudo do
//     not elevate), and everything it starts (background jobs, double
//     forks, setsid daemons) dies when it ends, or when rein dies before
//     it, however rein dies. /dev/shm is its own and goes with it. Its
//     environment is the tool's (credentials removed), never rein's.
//
// # What is not
//
//   - Unix sockets by path: Landlock ABI 7 does not restrict connecting
//     to one, so a socket that is not hidden can be reached, and through
//     it a program outside may run commands (a hidden path covers the
//     well-known ones; hide others with DenyRead).
//   - What the writable roots hold is shared with everything outside: a
//     command may write a Makefile, package.json scripts, a direnv
//     .envrc, editor tasks, Husky's scripts beside core.hooksPath, or
//     poison a build or module cache, and a person or a tool outside may
//     run it later. Only git's own config and hooks and .rein are
//     protected; a repository the command itself creates, one nested
//     below a workspace root, and files named by include.path are not.
//   - Hidden paths are those that exist when the command starts: a
//     credential store created during the command, in a readable
//     directory, is readable; a hard link to a hidden file elsewhere is
//     too. Abstract Unix sockets outside are reachable when the network
//     is on and Landlock is older than ABI 6.
//   - Resources: CPU, memory, disk space and the number of processes are
//     not limited beyond the user's own limits.
//   - With the network on, everything the user's network reaches.
//
// # Elsewhere
//
// On other systems Probe says the sandbox is unavailable, and why; a
// macOS backend (sandbox-exec with a profile made of the policy) would
// implement the small interface the Linux backend does.
package sandbox
