// Package tool is rein's tool runtime: the only place where a model's tool
// intent becomes an action. [Runtime.Run] takes the intents of one turn
// through the pipeline, and every stage is an event the caller appends:
//
//  1. lookup and validation (tool.validation): the tool must exist and be
//     visible; the input must match its JSON schema and its preconditions
//     (registry.Tool.Check: everything the tool can check without acting),
//     so that a call that cannot apply is refused with its reason and
//     nobody is asked about it. A precondition about the world as it is
//     now (registry.CheckError.Current) is refused here only when no
//     intent admitted before it in the turn may make it hold (one that
//     may change files; a read, for what the session has read); otherwise
//     it is left to the tool, which checks it again when it runs;
//  2. permission (tool.permission): the policy of internal/permission
//     decides; an ask goes to a person through an [Approver] (with a
//     [Question.Preview] of what the call would change, when its tool
//     has one: the diff of a file write), or, in a run that cannot ask,
//     becomes a deny by "headless". A person's [Reply] may say, with a
//     denial, what the model should do instead: it is the event's
//     message, and the observation tells the model;
//  3. a durable point: the caller's log is synced before anything runs;
//  4. scheduling and execution (tool.invocation.started and .completed):
//     consecutive concurrency-safe intents run together, bounded; an
//     exclusive one runs alone, in the order proposed; each with a timeout,
//     cancelled with the run. When the OS sandbox refused a call something
//     (registry.Result.SandboxDenied), a person is asked whether to run
//     that one call again with no sandbox ([AskOutsideSandbox]): a yes is
//     a tool.permission by "user", then a second invocation recorded with
//     sandbox mode "off", whose end is the intent's observation; in a run
//     that cannot ask, the observation says which flag or setting would
//     allow such commands. While a tool that streams runs (bash), what
//     it prints goes to a [Live] sink as tool.output_delta events,
//     coalesced, for a person to watch; they are never stored;
//  5. observation (tool.observation): what the model is told, bounded to
//     a head and a tail with an explicit "N lines omitted" marker; the whole
//     output, when it does not fit or reaches Limits.ArtifactMinBytes (2 KiB),
//     is kept as a session artifact (up to a cap each, and up to
//     Options.ArtifactLimit for all of a session's; past that the
//     observation says the whole was not kept, and why) and referenced
//     (Observation.ArtifactRef), so that the context engine can elide an
//     observation from a later prompt and point at the whole text. An
//     output that fits is shown as it is, artifact or not. Tool output is
//     marked untrusted. The stamps of
//     the files the call read or wrote (registry.Result.Files) are recorded
//     here too: the state folds them into the read ledger, which the next
//     calls' Check and Execute get (registry.Call.Ledger).
//
// Every intent ends with exactly one observation, whatever stage stopped
// it: a validation error, a denial and a tool failure are observations the
// model sees, so that it can correct itself. A Go error from Run means the
// runtime itself failed (the log could not be written).
//
// [Runtime.RunUser] takes a person's own call (a command typed as !cmd)
// through the same pipeline, without the permission question: the person
// decided, and the record says so (tool.permission by "user").
package tool
