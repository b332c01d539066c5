//go:build race

package corrections

// raceEnabled shrinks the large tests under the race detector, which runs
// them ten times slower.
const raceEnabled = true
