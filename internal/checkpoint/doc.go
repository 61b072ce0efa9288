// Package checkpoint is a content-addressed, incremental store of
// snapshots of a workspace directory, a small git of its own: a
// [Store.Take] records what is needed to bring the workspace back to that
// moment byte for byte (content, permission bits, symbolic links as
// links), and [Store.Plan] and [Store.Restore] bring it back. It is a pure
// library: it records nothing in any event log, and it never runs git (a
// hostile repository's configuration can run programs); it reads
// .git/index and the ignore files itself.
//
// # What a snapshot holds
//
// Every file git would see (tracked and untracked, not ignored; a tracked
// file an ignore pattern matches is seen all the same, by the index), and
// ignored files up to a budget ([Options.IgnoredBudget], in walk order; an
// ignored file over [Options.IgnoredMaxFile] is left out, and so are the
// ignored dependency and build directories such as node_modules, target,
// .venv). Outside a git repository only .gitignore files ignore anything,
// and the dependency directories are left out always. .git is never
// recorded, nor are special files (fifos, sockets, devices). What was left
// out is said in the [Snapshot].
//
// A path left out is a tombstone in its tree: an entry of its own kind
// with the reason (a directory left out is one tombstone), which means
// "unknown here", not "absent". [Store.Diff] reports no change where
// either snapshot has a tombstone at a path or above it, and [Store.Plan]
// never removes or writes a path the target left out: it cannot be
// restored, so it is left alone. A path the target recorded and the last
// snapshot left out can be restored, but what is on disk there is unknown
// to the store: a conflict. A Take reads a path that the base left out
// again, as a new one (a file holding a secret is read, and left out,
// each time).
//
// # Restoring
//
// [Store.Plan] lists the paths that differ between the last snapshot and
// the target and are not on disk as the target has them already, and the
// conflicts: those whose content on disk differs from the last snapshot's,
// and what is in the way of a write that the last snapshot did not record
// (a directory holding other files where a file goes, a file or link
// where a directory goes), which [Change.InTheWay] names. [Store.Restore]
// checks every write first (what is in the way, the objects it copies)
// and writes nothing when one fails; it removes what is in the way only
// when a change names it.
//
// # On disk
//
// Every object is named by the sha256 of its bytes: a file's content, a
// symbolic link's target, or a tree. A tree is one directory, its entries
// sorted by name, each with its name, kind, mode, size, modification time,
// inode and the hash of its content (or subtree); so the trees are the
// stat cache, as git's index is: a later Take lstats each file and reads
// again only those whose size, time, inode or mode differ from the base's
// entry, and those modified within a second before the base was taken
// ("racily clean": a change in the same tick of the clock leaves the time
// as it was). A directory whose entries are all as they were keeps its
// tree object, so a changed file writes its content and the trees on its
// path. A snapshot's id is its root tree's hash.
//
// The small objects (up to 1 MiB) a Take writes go into one pack,
// Dir/packs/NAME.pack, its index and a trailer at its end (see pack.go):
// making a file costs about as much as writing a megabyte on many disks,
// and a first snapshot of ten thousand files would make ten thousand.
// Larger files are loose objects, Dir/objects/ab/cdef…, written to a
// temporary file in Dir/tmp while they are hashed and renamed. Dir/taken
// has a line for each Take: when each snapshot was last taken, for the
// racy check after [Store.Base]. Nothing is rewritten in place, and
// nothing is fsynced (a crash may lose the last checkpoints' objects:
// reading one that is missing or whose bytes do not match its name is an
// error naming it). [Store.Keep] removes what the kept snapshots do not
// reach, writing again a pack of which only some objects live.
package checkpoint
