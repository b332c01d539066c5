package config

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// parseBytes reads an amount of memory: a number of bytes, or a number
// with a unit KiB, MiB, GiB or TiB (also K, M, G, T, KB, MB, GB, TB, all
// binary).
func parseBytes(v string) (int64, error) {
	s := strings.TrimSpace(v)
	num := strings.TrimRightFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	unit := strings.ToUpper(strings.TrimSpace(s[len(num):]))
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("want a size such as 2GiB, 512MiB or a number of bytes")
	}
	shift := map[string]uint{"": 0, "B": 0, "K": 10, "KB": 10, "KIB": 10, "M": 20, "MB": 20, "MIB": 20,
		"G": 30, "GB": 30, "GIB": 30, "T": 40, "TB": 40, "TIB": 40}
	sh, ok := shift[unit]
	if !ok || n > (1<<62)>>sh {
		return 0, fmt.Errorf("want a size such as 2GiB, 512MiB or a number of bytes")
	}
	return n << sh, nil
}

// defaultMemoryBudget is three quarters of the memory the process may use:
// its cgroup's limit when it has one (a container), else the machine's.
// Without either (not Linux), 4 GiB.
func defaultMemoryBudget() int64 {
	if n := cgroupLimit(); n > 0 {
		return n / 4 * 3
	}
	if n := memTotal(); n > 0 {
		return n / 4 * 3
	}
	return 4 << 30
}

// cgroupLimit is memory.max of the process's cgroup (v2), or 0.
func cgroupLimit() int64 {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if path, ok := strings.CutPrefix(line, "0::"); ok {
			v, err := os.ReadFile("/sys/fs/cgroup" + strings.TrimSpace(path) + "/memory.max")
			if err != nil {
				return 0
			}
			n, err := strconv.ParseInt(strings.TrimSpace(string(v)), 10, 64)
			if err != nil { // "max": no limit
				return 0
			}
			return n
		}
	}
	return 0
}

// memTotal is the machine's memory from /proc/meminfo, or 0.
func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
