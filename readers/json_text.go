package readers

import (
	"bytes"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Rendering of checked JSON values as cell text. The results are those
// of the encoding/json based reader, byte for byte, including how invalid
// UTF-8 was replaced: a string without escapes had each run of invalid
// bytes replaced by one U+FFFD (strings.ToValidUTF8), while a string with
// escapes went through json.Unmarshal, which replaces each invalid byte.

// appendJSONText appends the text of a checked JSON string, given its
// contents s (without the quotes) and the flags str found.
func appendJSONText(dst, s []byte, flags uint8) []byte {
	if flags&flagEscaped != 0 {
		return appendUnquoted(dst, s)
	}
	start := len(dst)
	dst = append(dst, s...)
	if flags&flagHigh != 0 {
		dst = fixUTF8(dst, start)
	}
	return dst
}

// appendUnquoted decodes the contents of a checked JSON string that holds
// escapes, as json.Unmarshal does.
func appendUnquoted(dst, s []byte) []byte {
	for r := 0; r < len(s); {
		c := s[r]
		switch {
		case c == '\\':
			var n int
			dst, n = appendEscape(dst, s[r:])
			r += n
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			if rr == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, unicode.ReplacementChar)
			} else {
				dst = append(dst, s[r:r+size]...)
			}
			r += size
		}
	}
	return dst
}

// appendEscape decodes the escape at the start of s and returns how many
// bytes it took. A \u escape of a UTF-16 surrogate takes the next one too
// when the two make a pair, and becomes U+FFFD otherwise.
func appendEscape(dst, s []byte) ([]byte, int) {
	switch c := s[1]; c {
	case 'b':
		return append(dst, '\b'), 2
	case 'f':
		return append(dst, '\f'), 2
	case 'n':
		return append(dst, '\n'), 2
	case 'r':
		return append(dst, '\r'), 2
	case 't':
		return append(dst, '\t'), 2
	case 'u':
		rr := hex4(s[2:6])
		if !utf16.IsSurrogate(rr) {
			return utf8.AppendRune(dst, rr), 6
		}
		if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
			if pair := utf16.DecodeRune(rr, hex4(s[8:12])); pair != unicode.ReplacementChar {
				return utf8.AppendRune(dst, pair), 12
			}
		}
		return utf8.AppendRune(dst, unicode.ReplacementChar), 6
	default: // '"', '\\', '/'
		return append(dst, c), 2
	}
}

// hex4 is the value of four hex digits, or -1 if they are not.
func hex4(s []byte) rune {
	var r rune
	for _, c := range s {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// appendCompactJSON appends a checked JSON array without the whitespace
// between its tokens, as json.Compact does, then repairs invalid UTF-8 in
// it as a string without escapes is.
func appendCompactJSON(dst, src []byte) []byte {
	start := len(dst)
	var high byte
	inString := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		high |= c
		switch {
		case inString && c == '\\':
			dst = append(dst, c, src[i+1])
			i++
			continue
		case c == '"':
			inString = !inString
		case !inString && isJSONSpace(c):
			continue
		}
		dst = append(dst, c)
	}
	if high >= utf8.RuneSelf {
		dst = fixUTF8(dst, start)
	}
	return dst
}

// fixUTF8 replaces each run of invalid UTF-8 in dst[start:] with U+FFFD.
func fixUTF8(dst []byte, start int) []byte {
	if utf8.Valid(dst[start:]) {
		return dst
	}
	return append(dst[:start], bytes.ToValidUTF8(dst[start:], []byte("\uFFFD"))...)
}
