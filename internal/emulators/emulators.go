// Package emulators runs real, in-process stand-ins for the services DQS
// talks to, for tests: an S3-compatible server (gofakes3), the GCS emulator
// (fake-gcs-server) and an SMTP server (go-smtp). Each listens on a
// loopback port and stops when the test ends, so the code under test goes
// through its whole client stack (HTTP, signing, SMTP dialogue) rather
// than a mock.
//
// What the stand-ins do not check is said on each: notably neither object
// store verifies request signatures or the expiry of signed URLs.
package emulators

// Bucket is the bucket the object-store emulators create.
const Bucket = "dqs-test"
