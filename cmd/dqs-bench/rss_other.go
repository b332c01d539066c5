//go:build !unix

package main

import "os"

// maxRSSKiB is unknown on this platform.
func maxRSSKiB(*os.ProcessState) int64 { return -1 }
