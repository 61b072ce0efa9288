package sandbox

// SocketsUnder is socketsUnder, for the tests of package sandbox_test.
var SocketsUnder = socketsUnder

// BoundSockets is boundSockets, for the tests of package sandbox_test.
var BoundSockets = boundSockets

// TmpSockets is tmpSockets, for the tests: what Record and Normalize add
// to any policy on this machine, which a test takes out before comparing.
var TmpSockets = tmpSockets
