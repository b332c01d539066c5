// Command gencommon writes auth/common_passwords.txt: the "passwords"
// frequency list of zxcvbn (the 30,000 most used passwords of Mark
// Burnett's ten-million-password set, ranked by zxcvbn's authors), as
// shipped by the Go module github.com/trustelem/zxcvbn, lower-cased,
// deduplicated and sorted so that the file's diff is stable.
//
// It is a module of its own so that the service does not depend on
// zxcvbn; `go generate ./auth` runs it.
package main

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/trustelem/zxcvbn/frequency"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gencommon OUTPUT")
		os.Exit(2)
	}
	seen := map[string]bool{}
	var out []string
	for _, pw := range frequency.FrequencyLists["passwords"] {
		pw = strings.ToLower(strings.TrimSpace(pw))
		if pw == "" || strings.ContainsAny(pw, "\r\n") || seen[pw] {
			continue
		}
		seen[pw] = true
		out = append(out, pw)
	}
	if len(out) < 20000 {
		fmt.Fprintf(os.Stderr, "gencommon: only %d passwords in the list; the module changed\n", len(out))
		os.Exit(1)
	}
	sort.Strings(out)
	if err := os.WriteFile(os.Args[1], []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gencommon:", err)
		os.Exit(1)
	}
}
