package classify

import (
	"strings"
	"unicode"
)

// Special categories (Art. 9 GDPR). Their values are everyday words — a list
// of religions could be a reference table — so all but religion and sexual
// orientation need a name hint, and those two need three distinct terms
// without one.

// neutralAnswers are survey answers that fit any special-category column:
// none, other, unknown, declined, in the product's languages.
var neutralAnswers = setOf(`none other unknown prefer_not_to_say prefer_not_to_answer not_stated declined
declined_to_state no_religion not_known n/a no_answer rather_not_say don't_know dont_know would_not_vote
unaffiliated no ingen annan annat vill_inte_uppge vill_ej_uppge nej nei ei muu ei_mitään ei_tiedossa
ei_halua_kertoa keine kein keine_angabe sonstige andere aucune aucun autre sans_réponse ninguno ninguna otro
none_known nil_known no_known_allergies nka nkda not_sure undecided`)

// answerWords splits a normalised answer into words: punctuation other than
// apostrophes, dots and hyphens inside a word separates ("White - British",
// "Asian/Asian British", "Gay (man)").
func answerWords(v string) []string {
	return strings.FieldsFunc(v, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’' || r == '-' || r == '.' || r == '+')
	})
}

// normAnswer lower-cases and collapses v for vocabulary look-ups.
func normAnswer(lower string) string {
	return strings.Join(strings.Fields(strings.Trim(lower, ". ")), " ")
}

// vocabTerm returns the vocabulary term v is, or, when contains is true,
// the first term among its word sequences of up to four words ("Type 2
// diabetes" → "type 2 diabetes", "Asian or Asian British - Indian" →
// "asian"). Containment is only used under a name hint: in a column named
// ethnicity, "White - Irish" states an ethnicity even though the whole
// answer is not a listed term.
func vocabTerm(vocab map[string]bool, lower string, contains bool) string {
	v := normAnswer(lower)
	if vocab[v] {
		return v
	}
	if !contains {
		return ""
	}
	ws := answerWords(v)
	for n := min(4, len(ws)); n >= 1; n-- {
		for i := 0; i+n <= len(ws); i++ {
			if t := strings.Join(ws[i:i+n], " "); vocab[t] {
				return t
			}
		}
	}
	return ""
}

// neutral reports whether the answer is a neutral one (none, declined …).
func neutral(lower string) bool { return neutralAnswers[normAnswer(lower)] }

// detVocab matches values against a vocabulary. With a name hint, values
// that contain a term count, neutral answers count too, and at least two
// distinct terms are needed; without one (only when valueOnly) values must
// be terms and at least three distinct terms are needed.
func detVocab(c *column, label string, vocab map[string]bool, valueOnly bool, what string) *cand {
	hint := c.hint(label)
	if !hint && !valueOnly {
		return nil
	}
	terms := map[string]bool{}
	m := c.count(func(it item) bool {
		if t := vocabTerm(vocab, it.lower, hint); t != "" {
			terms[t] = true
			return true
		}
		return hint && neutral(it.lower)
	})
	need := 2
	if !hint {
		need = 3
	}
	if m == 0 || len(terms) < need {
		return nil
	}
	return &cand{label: label, matches: m, strength: 0.85, tier: 1, prio: prioSpecial, what: what}
}

func detReligion(c *column) *cand {
	return detVocab(c, LabelReligion, religionVocab, true, "are religions or beliefs")
}

func detEthnicity(c *column) *cand {
	return detVocab(c, LabelEthnicity, ethnicityVocab, false, "are ethnic or racial origins")
}

func detOrientation(c *column) *cand {
	return detVocab(c, LabelOrientation, orientationVocab, true, "are sexual orientations")
}

func detPolitical(c *column) *cand {
	if k := detVocab(c, LabelPolitical, politicalVocab, false, "are political parties or leanings"); k != nil {
		return k
	}
	// party_member = yes/no. Without the membership word a party flag may
	// be about a third party or a party booking.
	if !c.hint(LabelPolitical) || !c.name.membership() {
		return nil
	}
	return membershipFlags(c, LabelPolitical, "are membership flags in a column named after party membership")
}

// membershipFlags proposes label for a column of yes/no answers (and
// neutral ones) whose name says membership of a party or union.
func membershipFlags(c *column, label, what string) *cand {
	bools := 0.0
	m := c.count(func(it item) bool {
		if _, ok := booleanVocab[it.lower]; ok {
			bools += float64(it.c)
			return true
		}
		return neutral(it.lower)
	})
	if bools == 0 {
		return nil
	}
	return &cand{label: label, matches: m, strength: 0.85, tier: 1, prio: prioSpecial, what: what}
}

// ---------------------------------------------------------------------------
// Health

// isICD10 matches ICD-10 codes such as E11, E11.9, J45.909, F32A.
func isICD10(v string) bool {
	u := strings.ToUpper(v)
	if len(u) < 3 || len(u) > 8 || u[0] < 'A' || u[0] > 'Z' {
		return false
	}
	if !isDigit(u[1]) || !(isDigit(u[2]) || u[2] == 'A' || u[2] == 'B') {
		return false
	}
	rest := u[3:]
	if strings.HasPrefix(rest, ".") {
		rest = rest[1:]
		if rest == "" {
			return false
		}
	}
	if len(rest) > 4 {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if !(isDigit(rest[i]) || rest[i] >= 'A' && rest[i] <= 'Z') {
			return false
		}
	}
	return true
}

// isBloodType matches ABO groups with an optional Rh factor: A+, AB neg,
// O Rh-, 0+ (the Nordic and German spelling of O).
func isBloodType(lower string) bool {
	v := strings.ReplaceAll(lower, " ", "")
	for _, rh := range []string{"rhd+", "rhd-", "rh+", "rh-", "positive", "negative", "pos", "neg", "+", "-"} {
		if s, ok := strings.CutSuffix(v, rh); ok {
			v = s
			break
		}
	}
	switch v {
	case "a", "b", "ab", "o", "0":
		return true
	}
	return false
}

// isBloodPressure matches systolic/diastolic readings such as 120/80 or
// 135 / 85 mmHg.
func isBloodPressure(lower string) bool {
	v := strings.TrimSpace(strings.TrimSuffix(lower, "mmhg"))
	sys, dia, ok := strings.Cut(v, "/")
	if !ok {
		return false
	}
	s, ok1 := parseInt(strings.TrimSpace(sys))
	d, ok2 := parseInt(strings.TrimSpace(dia))
	return ok1 && ok2 && s >= 60 && s <= 260 && d >= 30 && d <= 160 && s > d
}

// isMedication matches prescriptions: a dose with its unit ("500 mg",
// "20mg", "50 mcg") or a listed drug or a drug-class name stem (WHO INN
// stems such as -statin, -pril, -sartan, -olol).
func isMedication(lower string) bool {
	ws := answerWords(lower)
	for i, w := range ws {
		if drugNames[w] || drugStem(w) {
			return true
		}
		if doseUnit(w, i > 0 && isNumberWord(ws[i-1])) {
			return true
		}
	}
	return false
}

func isNumberWord(w string) bool {
	_, _, ok := parseNumber(w)
	return ok
}

// doseUnit reports whether w is a dose: a number glued to a unit (20mg), or
// a unit after a number word (20 mg).
func doseUnit(w string, afterNumber bool) bool {
	for _, u := range doseUnits {
		if afterNumber && w == u {
			return true
		}
		if n, ok := strings.CutSuffix(w, u); ok && n != "" && isNumberWord(n) {
			return true
		}
	}
	return false
}

var doseUnits = []string{"mg", "mcg", "µg", "ug", "ml", "iu", "ie", "mmol"}

func drugStem(w string) bool {
	if len(w) < 7 {
		return false
	}
	for _, s := range drugStems {
		if strings.HasSuffix(w, s) {
			return true
		}
	}
	return false
}

// healthKind classifies one value of a health-named column.
type healthKind int

const (
	hkNone    healthKind = iota
	hkCode               // ICD-10 code, possibly followed by its description
	hkMeasure            // blood type or blood pressure
	hkTerm               // condition, allergy or medication
	hkNeutral            // none, unknown …
)

func healthValue(it item) (healthKind, string) {
	first := it.v
	if f := strings.Fields(it.v); len(f) > 0 {
		first = strings.TrimRight(f[0], ":,-")
	}
	switch {
	case isICD10(first):
		return hkCode, ""
	case isBloodType(it.lower), isBloodPressure(it.lower):
		return hkMeasure, ""
	}
	if t := vocabTerm(healthVocab, it.lower, true); t != "" {
		return hkTerm, t
	}
	if isMedication(it.lower) {
		return hkTerm, normAnswer(it.lower)
	}
	if neutral(it.lower) {
		return hkNeutral, ""
	}
	return hkNone, ""
}

func detHealth(c *column) *cand {
	if !c.hint(LabelHealth) {
		return nil
	}
	var codes, measures float64
	terms := map[string]bool{}
	m := c.count(func(it item) bool {
		k, term := healthValue(it)
		switch k {
		case hkCode:
			codes += float64(it.c)
		case hkMeasure:
			measures += float64(it.c)
		case hkTerm:
			terms[term] = true
		}
		return k != hkNone
	})
	if m == 0 || codes == 0 && measures == 0 && len(terms) < 2 {
		return nil
	}
	k := &cand{label: LabelHealth, matches: m, strength: 0.85, tier: 1, prio: prioSpecial,
		what: "are health data (ICD-10 codes, conditions, allergies, medication or measurements)"}
	if codes+measures >= 0.5*m {
		k.strength = 0.9 // formats of their own, not just words
	}
	return k
}

// ---------------------------------------------------------------------------
// Biometrics

func biometricValue(v string) bool {
	s := strings.Trim(v, "[]{}() ")
	if parts := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == ';' }); len(parts) >= 8 {
		for _, p := range parts {
			if _, _, ok := parseNumber(p); !ok {
				return false
			}
		}
		return true
	}
	if len(v) >= 40 && isTokenChars(v) && shannonEntropy(v) >= 3.5 {
		return true
	}
	return len(v) >= 64 && isHex(v)
}

func detBiometric(c *column) *cand {
	if !c.hint(LabelBiometric) {
		return nil
	}
	m := c.count(func(it item) bool { return biometricValue(it.v) })
	if m == 0 {
		return nil
	}
	return &cand{label: LabelBiometric, matches: m, strength: 0.85, tier: 1, prio: prioSpecial,
		what: "are encoded templates or embedding vectors"}
}

// ---------------------------------------------------------------------------
// Trade unions

// unionName reports whether the value names a trade union: a listed union or
// confederation, or a word such as union, förbund, liitto, gewerkschaft.
func unionName(lower string) bool {
	words := answerWords(lower)
	for _, p := range unionNameParts {
		if len(p) >= 5 {
			if strings.Contains(lower, p) {
				return true
			}
			continue
		}
		for _, w := range words {
			if w == p {
				return true
			}
		}
	}
	return false
}

func detTradeUnion(c *column) *cand {
	if !c.hint(LabelTradeUnion) {
		return nil
	}
	names, bools := 0.0, 0.0
	m := c.count(func(it item) bool {
		if _, ok := booleanVocab[it.lower]; ok {
			bools += float64(it.c)
			return true
		}
		if unionName(it.lower) {
			names += float64(it.c)
			return true
		}
		return neutral(it.lower)
	})
	if m == 0 {
		return nil
	}
	k := &cand{label: LabelTradeUnion, matches: m, strength: 0.85, tier: 1, prio: prioSpecial,
		what: "are union names or membership flags"}
	if bools >= 0.5*m {
		k.strength = 0.9
		k.what = "are membership flags in a column named after trade unions"
	}
	return k
}
