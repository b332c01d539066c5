package connectors

// The errors of a connection that fails, shared by the table sources that
// map a client library's failures to ErrConnect (bigquery, snowflake), so
// that errors.Is finds the same things whichever kind failed.

// ConnectError is ErrConnect with a message of the connector's own (never
// the library's, which may quote a request) and the cause (a guard's
// refusal, context.DeadlineExceeded, ...), both of which errors.Is and
// errors.As still reach.
type ConnectError struct {
	Msg   string
	Cause error
}

func (e *ConnectError) Error() string   { return e.Msg }
func (e *ConnectError) Unwrap() []error { return []error{ErrConnect, e.Cause} }

// DialError is a failed dial of a source's transport. Its message reads
// the same whatever the cause (refused, filtered, refused by the guard),
// which also keeps client libraries from retrying a closed port until the
// deadline (they retry errors that say "connection refused"); errors.Is
// and errors.As still reach the cause.
type DialError struct{ Cause error }

func (e *DialError) Error() string { return "could not open a connection" }
func (e *DialError) Unwrap() error { return e.Cause }
