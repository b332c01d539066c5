package standardize

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// foldLimit bounds foldTable: the Latin, Greek and Cyrillic letters with
// accents are all below it. Scripts above it (CJK, Hangul, …) have no
// accents to fold; Hangul syllables in particular must not be decomposed
// into jamo, which would triple their length.
const foldLimit = 0x2000

// foldTable holds, for each rune below foldLimit that folds to something
// other than its lower case, its folded lower-case form; "" otherwise.
// Building it once (8k runes through NFD, a millisecond) keeps the per-value
// path a table lookup.
var foldTable [foldLimit]string

// foldSpecial are letters that canonical decomposition leaves alone but an
// ASCII reader writes otherwise, as OpenRefine's asciify does.
var foldSpecial = map[rune]string{
	'ø': "o", 'Ø': "o", 'æ': "ae", 'Æ': "ae", 'œ': "oe", 'Œ': "oe",
	'ß': "ss", 'ẞ': "ss", 'ł': "l", 'Ł': "l", 'đ': "d", 'Đ': "d",
	'ð': "d", 'Ð': "d", 'þ': "th", 'Þ': "th", 'ı': "i", 'ħ': "h",
	'Ħ': "h", 'ŧ': "t", 'Ŧ': "t", 'ŀ': "l", 'Ŀ': "l", 'ĸ': "k",
}

func init() {
	for r := rune(0x80); r < foldLimit; r++ {
		if s, ok := foldSpecial[r]; ok {
			foldTable[r] = s
			continue
		}
		if !unicode.IsLetter(r) {
			continue
		}
		var b strings.Builder
		for _, d := range norm.NFD.String(string(r)) {
			if !unicode.Is(unicode.Mn, d) {
				b.WriteRune(unicode.ToLower(d))
			}
		}
		if f := b.String(); f != "" && f != string(unicode.ToLower(r)) {
			foldTable[r] = f
		}
	}
}
