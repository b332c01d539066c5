package auth

import (
	_ "embed"
	"sort"
	"strings"
	"sync"
)

//go:generate sh -c "cd internal/gencommon && go run . ../../common_passwords.txt"

// commonPasswordsFile is the list of the 30,000 most used passwords, one a
// line, lower-cased and sorted; common_passwords.NOTICE says where it comes
// from and under which licence.
//
//go:embed common_passwords.txt
var commonPasswordsFile string

// commonPasswords is the list as a sorted slice, split on first use: a
// binary search over it needs no map of 30,000 entries in memory.
var commonPasswords = sync.OnceValue(func() []string {
	return strings.Split(strings.TrimSuffix(commonPasswordsFile, "\n"), "\n")
})

// isCommonPassword reports whether pw, lower-cased and without surrounding
// blanks, is on the list of common passwords.
func isCommonPassword(pw string) bool {
	pw = strings.ToLower(strings.TrimSpace(pw))
	list := commonPasswords()
	i := sort.SearchStrings(list, pw)
	return i < len(list) && list[i] == pw
}
