package colgen

import (
	"fmt"
	"strconv"
	"time"
)

// Check digits. These are written independently of the validators in
// classify on purpose: generating test data with the code under test would
// let a bug in a validator pass its own tests.

// LuhnComplete appends the Luhn (mod 10) check digit to the digit string s.
func LuhnComplete(s string) string {
	sum := 0
	for i := range len(s) {
		d := int(s[len(s)-1-i] - '0')
		if i%2 == 0 { // the check digit will stand to the right, so s's last digit is doubled
			d = d*2/10 + d*2%10
		}
		sum += d
	}
	return s + strconv.Itoa((10-sum%10)%10)
}

// IBAN puts the country code and the ISO 7064 mod 97-10 check digits in
// front of a basic bank account number of digits and upper-case letters.
func IBAN(cc, bban string) string {
	return cc + fmt.Sprintf("%02d", 98-mod97(bban+cc+"00")) + bban
}

// mod97 is the remainder modulo 97 of s read as a number, letters counting
// as the two digits 10 (A) to 35 (Z).
func mod97(s string) int {
	r := 0
	for _, c := range []byte(s) {
		if c >= 'A' {
			r = (r*100 + int(c-'A') + 10) % 97
		} else {
			r = (r*10 + int(c-'0')) % 97
		}
	}
	return r
}

// hetuCheck maps DDMMYYNNN mod 31 to the check character of a Finnish
// henkilötunnus (letters that look like digits or each other left out).
const hetuCheck = "0123456789ABCDEFHJKLMNPRSTUVWXY"

// FIHetu writes the henkilötunnus DDMMYY, sign, NNN and check character of a
// person born on birth; sign is the century sign the caller chose ("-", "Y",
// "A", …) and individual the number 2–899.
func FIHetu(birth time.Time, sign string, individual int) string {
	n := ((birth.Day()*100+int(birth.Month()))*100+birth.Year()%100)*1000 + individual
	return fmt.Sprintf("%02d%02d%02d%s%03d%c", birth.Day(), int(birth.Month()), birth.Year()%100, sign, individual, hetuCheck[n%31])
}

// noFnr writes the eleven digits of a Norwegian fødselsnummer, or of a
// D-number (day + 40) when dNumber is set, with its two mod-11 control
// digits. ok is false when a control digit would be 10: such numbers are
// never issued.
func noFnr(birth time.Time, dNumber bool, individual int) (v string, ok bool) {
	day := birth.Day()
	if dNumber {
		day += 40
	}
	v = fmt.Sprintf("%02d%02d%02d%03d", day, int(birth.Month()), birth.Year()%100, individual)
	for _, w := range [][]int{{3, 7, 6, 1, 8, 9, 4, 5, 2}, {5, 4, 3, 2, 7, 6, 5, 4, 3, 2}} {
		s := 0
		for i, wi := range w {
			s += int(v[i]-'0') * wi
		}
		k := (11 - s%11) % 11
		if k == 10 {
			return "", false
		}
		v += strconv.Itoa(k)
	}
	return v, true
}
