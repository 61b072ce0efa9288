// Package session keeps rein's sessions on disk: one directory per
// session, named by its id, under a root (by default
// $XDG_STATE_HOME/rein/sessions, else ~/.local/state/rein/sessions):
//
//	<root>/<id>/events.jsonl   the log: the truth, and enough on its own
//	<root>/<id>/artifacts/     full tool outputs the log refers to
//	<root>/<id>/lock           held (flock) by the one process writing the log
//	<root>/<id>/tasks/<child>/ a session a task call of <id> ran: a session of
//	                           its own (log, artifacts, lock, its own tasks/)
//	<root>/index.json          summaries for `rein sessions`: an optimisation
//
// A child is reached through its parent's [Store.Tasks], and found by its
// id anywhere below the root by [Store.Locate]. It is never one of the
// root's sessions ([Store.List], [Store.Last]): a summary lists it among
// its parent's Children, and the parent's cost is its tree's.
//
// A writer ([Store.Create], [Store.Open]) holds the session's lock for as
// long as it appends, so two processes never write one log; it folds the
// log into state in the same pass that verifies it. Read-only access
// ([Store.Read], [Store.List], [Store.Summarize]) writes nothing at all: no
// lock, no tail repair, no index update.
//
// The index is rebuilt from the logs at any time ([Store.Reindex]); an entry
// is used only while the log's size and modification time are the ones it
// was made from, so when the index and a log disagree the log wins.
package session
