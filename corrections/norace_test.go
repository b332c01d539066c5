//go:build !race

package corrections

const raceEnabled = false
