package sandbox

// SocketsUnder is socketsUnder, for the tests of package sandbox_test.
var SocketsUnder = socketsUnder

// BoundSockets is boundSockets, for the tests of package sandbox_test.
var BoundSockets = boundSockets
