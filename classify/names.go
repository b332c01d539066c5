package classify

import (
	"strings"
	"unicode"
)

// hintDef lists what in a column name points at a label: whole tokens of the
// split name, and substrings of the compact (separator-free, lower-case) name.
// Short or ambiguous words are token-only so "ip" does not fire on "zip" or
// "recipient" and "age" does not fire on "page" or "usage".
type hintDef struct {
	tokens string
	subs   string
	head   bool // only the head of the name counts: its last word, or a suffix of the compact name
}

var hintDefs = map[string]hintDef{
	LabelEmail: {tokens: "mail email epost courriel correo", subs: "email epost sähköposti sahkoposti courriel emailaddress"},
	LabelPhone: {tokens: "phone tel telephone mobile cell cellphone mobil telefon puhelin gsm msisdn fax tlf tfn handy mob phoneno telefonnummer mobilnummer portable téléphone telefono",
		subs: "phone telefon puhelin msisdn mobilnummer mobilenumber telephone cellnumber mobileno"},
	// "cc" alone is as often carbon copy (cc_recipients) as credit card: it
	// counts only with a number word (cc_num, ccno).
	LabelPaymentCard: {tokens: "pan ccnum card cardnumber creditcard kort kortnummer kortti",
		subs: "cardnumber creditcard ccnumber ccnum ccno ccnr kortnummer cardno debitcard kortinnumero cardnum"},
	LabelIBAN: {tokens: "iban", subs: "iban"},
	// Account-number names point at bank_account, whose family includes
	// IBAN: an account_number column of IBANs agrees with its name.
	LabelBankAccount: {tokens: "acctno acctnum accno accountno", subs: "bankaccount accountnumber accountno accountnum acctnumber acctno acctnum accnumber kontonummer kontonr tilinumero bankkonto"},
	// A VIN is also called a chassis number (Fahrgestellnummer, chassinummer).
	LabelVIN:      {tokens: "vin vins vinno vinnumber chassis", subs: "vehicleidentification chassisnumber chassisno fahrgestellnummer chassinummer"},
	LabelPassport: {tokens: "passport passportno passnr passnummer reisepass passeport pasaporte passaporto", subs: "passport reisepass passeport pasaporte passnummer"},
	// A bare "license" is as often a software licence or a number plate:
	// only driver's licence and licence-number names count.
	LabelDriverLic: {tokens: "dl dlno dlnum dlnumber", subs: "driverlicense driverslicense driverlicence driverslicence drivinglicense drivinglicence licensenumber licencenumber licenseno licenceno körkort korkort ajokortti førerkort forerkort kørekort korekort führerschein fuehrerschein permisdeconduire"},
	LabelMAC:       {tokens: "mac macaddr macaddress hwaddr hwaddress", subs: "macaddress macaddr hwaddress hwaddr"},
	// A bare "handle" is as often a product slug (Shopify's Handle column).
	LabelUsername:    {tokens: "username usernames login logon screenname nickname nick uname", subs: "username screenname loginname userlogin twitterhandle instagramhandle socialhandle userhandle githubhandle tiktokhandle benutzername användarnamn anvandarnamn käyttäjätunnus kayttajatunnus brukernavn brugernavn"},
	LabelURL:         {tokens: "url urls uri link href website homepage referrer referer", subs: "url homepage website weblink"},
	LabelNationalID:  {tokens: "nin nationalid natid idnumber personalnumber", subs: "nationalid nationalidentity identitynumber personalidentitynumber personalnumber citizenid idnumber"},
	LabelSSN:         {tokens: "ssn socsec", subs: "socialsecurity"},
	LabelSEPnr:       {tokens: "pnr personnr personnummer samordningsnummer", subs: "personnummer personnr samordningsnummer"},
	LabelFIHetu:      {tokens: "hetu sotu henkilötunnus henkilotunnus", subs: "henkilötunnus henkilotunnus hetu"},
	LabelNOFnr:       {tokens: "fnr fodselsnummer fødselsnummer fodselsnr dnummer", subs: "fodselsnummer fødselsnummer"},
	LabelDKCPR:       {tokens: "cpr cprnr cprnummer", subs: "cprnr cprnummer"},
	LabelIP:          {tokens: "ip ipaddr ipaddress ipv4 ipv6 ips", subs: "ipaddress ipaddr remoteaddr clientip sourceip remoteip srcip dstip userip"},
	LabelStreet:      {tokens: "address addr street adress adresse osoite gatuadress gateadresse strasse straße addressline address1 address2 line1 line2", subs: "address adress streetaddress gatuadress katuosoite"},
	LabelPostalCode:  {tokens: "zip zipcode postcode postal postnummer postnr postinumero plz postleitzahl eircode", subs: "zipcode postalcode postcode postnummer postinumero postleitzahl codepostal"},
	LabelDateOfBirth: {tokens: "dob birth birthday birthdate born bday fodelsedatum födelsedatum fødselsdato syntymäaika syntymaaika geburtsdatum geburtstag naissance geb gebdat gebdatum geboren född fodd født fodt syntynyt", subs: "birth dateofbirth födelse fodelse fødselsdato fodselsdato syntymä syntyma geburt naissance nacimiento"},
	LabelGender:      {tokens: "gender sex kön kon kjønn kjonn køn sukupuoli geschlecht sexe genre genero género", subs: "gender sukupuoli geschlecht"},
	LabelAge:         {tokens: "age ålder alder ikä ika alter âge edad", subs: "ageyears ageinyears"},
	LabelGeo:         {tokens: "lat latitude lng lon longitude geo gps coordinates coords coord geolocation location position latlng latlon geopoint breddgrad längdgrad leveysaste pituusaste", subs: "latitude longitude latlng latlon geolocation coordinates geopoint"},
	LabelPassword:    {tokens: "password passwd pwd pass passphrase passcode pw lösenord losenord salasana passord adgangskode kodeord passwort kennwort motdepasse mdp contrasena contraseña", subs: "password passwd passphrase passcode losenord lösenord salasana passwort kennwort motdepasse"},
	LabelSecret:      {tokens: "token secret apikey accesskey secretkey privatekey clientsecret authtoken accesstoken refreshtoken bearer credential credentials jwt", subs: "apikey secret token accesskey privatekey credential signingkey"},
	LabelHealth: {tokens: "diagnosis diagnoses diagnos diagnose diagnoosi icd icd10 icd9 condition conditions disease diseases illness medical health allergy allergies medication medications symptom symptoms sjukdom krankheit treatment prescription comorbidity blood bloodtype bloodgroup sairaus sairaudet lääkitys läkemedel medikament medikamente maladie maladies disability behinderung",
		subs: "diagnos icd10 medical medication allerg sjukdom krankheit healthcondition bloodtype bloodgroup bloodpressure blutgruppe blutdruck blodgrupp blodtryck veriryhmä verenpaine erkrankung sairau lääkitys läkemedel lakemedel medikament"},
	LabelReligion:    {tokens: "religion religious faith belief beliefs denomination uskonto tro trossamfund trossamfunn konfession religión", subs: "religion uskonto konfession trosuppfattning trostillhörighet livsåskådning bekenntnis"},
	LabelEthnicity:   {tokens: "ethnicity ethnic race etnicitet etnisk etnisitet etnisyys ethnie", subs: "ethnic etnici etnisk"},
	LabelOrientation: {tokens: "orientation sexuality orientierung", subs: "sexualorientation sexuality sexualpref sexuellläggning sexuelleorientierung orientationsexuelle seksuellorientering seksuelorientering seksuaalinensuuntautuminen"},
	LabelPolitical:   {tokens: "political politics party parti puolue partei vote voting", subs: "political partyaffil puolue votingintention"},
	LabelBiometric:   {tokens: "biometric biometrics fingerprint faceprint iris retina voiceprint palmprint", subs: "biometric fingerprint faceprint faceembedding facetemplate faceencoding facevector voiceprint irisscan iriscode retina"},
	LabelTradeUnion:  {tokens: "union tradeunion unionmember unionmembership fackförening fackforening fack ammattiliitto fagforening fagforbund gewerkschaft syndicat sindicato fackförbund fackforbund", subs: "tradeunion unionmember fackförening fackforening fackförbund fackforbund ammattiliitto fagforening fagforbund gewerkschaft syndicat"},

	// Identifier words count as the head of the name only: order_id and
	// code are identifiers, invoice_age_days and code_postal are not.
	LabelIdentifier: {tokens: "id uuid guid code no nr num number ref reference sku ean upc isbn gtin imei serial slug checksum digest sha sha1 sha256 md5 etag invoice order key",
		subs: "ordernumber orderno invoiceno invoicenumber nummer nr numero tunnus", head: true},
	LabelMoney:    {tokens: "price amount cost total fee fees charges pay revenue salary wage balance subtotal tax vat discount payment charge belopp pris hinta summa betrag preis prix montant usd eur sek gbp nok dkk income spend budget profit", subs: "price amount belopp"},
	LabelDatetime: {tokens: "timestamp ts datetime time at updated created modified occurred logged", subs: "timestamp datetime"},
	LabelDate:     {tokens: "date day dt datum päivämäärä paivamaara dato", subs: "date datum"},
	LabelBoolean:  {tokens: "is has flag enabled disabled active verified confirmed deleted valid optin consent can should bool", subs: ""},
	LabelCategory: {tokens: "type status category kind level tier state segment group class channel source country region currency language lang", subs: ""},
	LabelNumber: {tokens: "count qty quantity score rating weight height size length width depth duration rank index seq cnt " +
		"days hours minutes seconds secs ms pct percent ratio rate kg cm mm km gb mb kb units", subs: ""},
	LabelFreeText: {tokens: "comment comments note notes description desc message text body remarks feedback review summary content bio about kommentar beskrivning", subs: ""},
}

// modifierTokens turn a personal-data name into a name about that data:
// email_verified, phone_type, password_changed_at, age_group, card_brand.
// When one is present the personal hint is dropped (neither agreement nor
// conflict), so the values alone decide.
var modifierTokens = setOf(`is has verified verify confirmed valid validated enabled disabled flag count cnt opt
optin optout opted consent consented bounced bounce sent status type domain provider length len changed
updated modified expires expiry expired reset policy strength attempts attempt failed required format
prefix visible public hidden masked allowed source kind mode level score checked match matched
last4 lastfour brand network country hash hashed digest md5 sha1 sha256 sha encrypted tokenized
pseudonymized anonymized group range bucket band bracket ext extension salt hint question algorithm algo
version rotation rotated at known unknown present missing exists`)

// flagPrefixes are modifiers that make a flag or a count wherever they
// stand: is_email_verified, has_phone, count_emails, opt_in_sms.
var flagPrefixes = setOf(`is has count cnt opt optin optout opted consent consented flag`)

// compoundHints are name fragments that contain a modifier word but name the
// data itself: a blood type is health data where a phone type is not a
// phone number, and an ethnic group is an ethnicity where an age group is
// no age.
var compoundHints = map[string][]string{
	LabelHealth:    {"bloodtype", "bloodgroup"},
	LabelEthnicity: {"ethnicgroup", "ethnicitygroup", "racialgroup"},
}

// hashTokens turn a password name into a password-hash name.
var hashTokens = setOf(`hash hashed digest crypt bcrypt scrypt argon argon2 sha sha1 sha256 sha512 md5 encrypted`)

// personNameStrong are compact name fragments that clearly mean a person's name.
var personNameStrong = []string{"firstname", "lastname", "surname", "givenname", "familyname", "fullname",
	"middlename", "maidenname", "forename", "förnamn", "fornamn", "efternamn", "etunimi", "sukunimi",
	"fornavn", "etternavn", "efternavn", "mellomnavn", "vorname", "nachname", "familienname", "prenom",
	"prénom", "apellido", "cognome", "contactname", "customername", "patientname", "employeename",
	"personname", "cardholder", "accountholder", "holdername", "kundnamn", "asiakkaannimi", "nomdefamille",
	"nomcomplet", "passengername", "membername", "studentname", "recipientname", "sendername", "guardianname",
	"parentname", "beneficiaryname", "drivername", "ownername", "clientname"}

var personNameWords = setOf(`name namn navn nimi nom nombre nome`)
var personishTokens = setOf(`customer contact person patient employee owner holder recipient sender member client
student driver passenger guardian parent beneficiary author signatory kund asiakas kunde henkilö
applicant candidate tenant buyer seller`)
var nonPersonNameTokens = setOf(`product company business org organisation organization file host domain city
country street brand item category table column field user username login screen nick nickname bank store
shop project team group app application service event place venue display server database schema job task
model device file plan role tag label dataset file key class type town region state site page`)

var raceCompanions = setOf(`origin self reported declared primary secondary user`)

// nameInfo is the analysed column name.
type nameInfo struct {
	raw            string
	tokens         []string
	tokenSet       map[string]bool
	compact        string
	hints          map[string]bool // label → name points at it
	weakPersonName bool            // bare "name": agrees only when values look like names
	droppedHints   []string        // personal hints dropped because of a modifier
}

// splitName splits a column name into lower-case tokens at separators and
// camelCase / acronym boundaries: "emailAddress" → email address,
// "IPAddress" → ip address, "date_of_birth" → date of birth.
func splitName(s string) []string {
	var toks []string
	var cur []rune
	rs := []rune(s)
	flush := func() {
		if len(cur) > 0 {
			toks = append(toks, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if len(cur) > 0 && unicode.IsUpper(r) {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return toks
}

func analyzeName(raw string) nameInfo {
	ni := nameInfo{raw: raw, tokenSet: map[string]bool{}, hints: map[string]bool{}}
	ni.tokens = splitName(raw)
	for _, t := range ni.tokens {
		ni.tokenSet[t] = true
	}
	ni.compact = strings.Join(ni.tokens, "")
	if ni.compact == "" {
		return ni
	}
	for label, def := range hintDefs {
		if matchHint(ni, def) {
			ni.hints[label] = true
		}
	}
	// Person names.
	for _, s := range personNameStrong {
		if strings.Contains(ni.compact, s) {
			ni.hints[LabelPersonName] = true
		}
	}
	hasNameWord, personish, nonPerson := false, false, false
	for _, t := range ni.tokens {
		switch {
		case personNameWords[t]:
			hasNameWord = true
		case personishTokens[t]:
			personish = true
		case nonPersonNameTokens[t]:
			nonPerson = true
		}
	}
	if ni.tokenSet["fname"] || ni.tokenSet["lname"] {
		ni.hints[LabelPersonName] = true
	}
	if hasNameWord && !nonPerson && !ni.hints[LabelPersonName] {
		if personish {
			ni.hints[LabelPersonName] = true
		} else {
			ni.weakPersonName = true
		}
	}
	// A name that is a person ("patient", "account_holder" is already
	// strong) may hold their names or their ids: weak, like bare "name".
	if personishTokens[ni.head()] && !nonPerson && !ni.hints[LabelPersonName] {
		ni.weakPersonName = true
	}
	// A column called just "user" (web logs, audit trails) names its user.
	if len(ni.tokens) == 1 && ni.tokens[0] == "user" {
		ni.hints[LabelUsername] = true
	}
	// Refinements of overlapping hints.
	if ni.hints[LabelEmail] || ni.hints[LabelIP] || ni.hints[LabelMAC] || ni.hints[LabelURL] {
		delete(ni.hints, LabelStreet) // email_address, ip_address, mac_address, web_address
	}
	if ni.hints[LabelBiometric] && ni.tokenSet["fingerprint"] {
		for _, t := range []string{"ssh", "key", "cert", "certificate", "device", "browser", "tls", "ssl", "gpg", "pgp", "file", "public", "host", "sha", "sha1", "sha256", "md5", "client", "request", "hash"} {
			if ni.tokenSet[t] {
				delete(ni.hints, LabelBiometric)
			}
		}
	}
	if ni.hints[LabelPassword] {
		for t := range ni.tokenSet {
			if hashTokens[t] {
				ni.hints[LabelPasswordHash] = true
			}
		}
		for _, s := range []string{"hash", "bcrypt", "digest", "crypt"} {
			if strings.Contains(ni.compact, s) {
				ni.hints[LabelPasswordHash] = true
			}
		}
	}
	if ni.tokenSet["race"] && !strings.Contains(ni.compact, "ethnic") {
		// "race" is ethnicity only on its own or with person words (patient_race),
		// not in race_time, race_id, horse_race.
		for _, t := range ni.tokens {
			if t != "race" && !personishTokens[t] && !raceCompanions[t] {
				delete(ni.hints, LabelEthnicity)
			}
		}
	}
	if ni.hints[LabelGender] && ni.tokenSet["sex"] && (ni.tokenSet["orientation"] || ni.tokenSet["sexual"]) {
		delete(ni.hints, LabelGender)
	}
	if ni.hints[LabelDateOfBirth] {
		delete(ni.hints, LabelDate) // date_of_birth: the birth hint is the specific one
		delete(ni.hints, LabelDatetime)
	}
	for _, l := range []string{LabelSSN, LabelSEPnr, LabelFIHetu, LabelNOFnr, LabelDKCPR} {
		if ni.hints[l] {
			ni.hints[LabelNationalID] = true
		}
	}
	// Trailing "at"/"on" → a timestamp about the thing (created_at, verified_on).
	if last := ni.tokens[len(ni.tokens)-1]; last == "at" || last == "on" {
		ni.hints[LabelDatetime] = true
	}
	// Modifiers: the name is about personal data, not personal data itself.
	// They follow the data word (email_verified, phone_type, age_group); a
	// leading one is an adjective of the data (verified_email,
	// known_conditions), except flag prefixes (is_, has_, count_).
	var modifiers []string
	for i, t := range ni.tokens {
		if modifierTokens[t] && (i > 0 || flagPrefixes[t]) {
			modifiers = append(modifiers, t)
		}
	}
	if len(modifiers) > 0 {
		for l := range ni.hints {
			if !isSensitiveLabel(l) || ni.modifiersAbsorbed(l, modifiers) {
				continue
			}
			if l == LabelPasswordHash || (l == LabelPassword && ni.hints[LabelPasswordHash]) {
				continue // password_hash, pwd_sha256
			}
			delete(ni.hints, l)
			ni.droppedHints = append(ni.droppedHints, l)
		}
		ni.weakPersonName = ni.weakPersonName && !ni.tokenSet["is"] && !ni.tokenSet["has"]
	}
	return ni
}

// modifiersAbsorbed reports whether every modifier word is part of a
// compound that names label l (blood_type, ethnic_group).
func (ni nameInfo) modifiersAbsorbed(l string, modifiers []string) bool {
	for _, m := range modifiers {
		absorbed := false
		for _, c := range compoundHints[l] {
			if strings.Contains(c, m) && strings.Contains(ni.compact, c) {
				absorbed = true
			}
		}
		if !absorbed {
			return false
		}
	}
	return true
}

// membershipWords say a column records membership (party_member,
// partimedlem, mitglied_partei).
var membershipWords = []string{"member", "medlem", "mitglied", "jäsen", "jasen", "adhérent", "afiliado"}

func (ni nameInfo) membership() bool {
	for _, w := range membershipWords {
		if strings.Contains(ni.compact, w) {
			return true
		}
	}
	return false
}

func matchHint(ni nameInfo, def hintDef) bool {
	head := ni.head()
	for _, t := range strings.Fields(def.tokens) {
		if def.head && t == head || !def.head && ni.tokenSet[t] {
			return true
		}
	}
	for _, s := range strings.Fields(def.subs) {
		if def.head && strings.HasSuffix(ni.compact, s) || !def.head && strings.Contains(ni.compact, s) {
			return true
		}
	}
	return false
}

// head is the name's last word with a letter (id_11 → id).
func (ni nameInfo) head() string {
	for i := len(ni.tokens) - 1; i >= 0; i-- {
		if hasLetter(ni.tokens[i]) {
			return ni.tokens[i]
		}
	}
	return ""
}

// family groups labels whose names are interchangeable for the purpose of
// name agreement (an "ssn" column holding Swedish personnummer still agrees).
func family(label string) string {
	switch label {
	case LabelNationalID, LabelSSN, LabelSEPnr, LabelFIHetu, LabelNOFnr, LabelDKCPR:
		return "national_id"
	case LabelPassword, LabelPasswordHash, LabelSecret:
		return "credential"
	case LabelDate, LabelDatetime:
		return "temporal"
	case LabelIBAN, LabelBankAccount:
		return "bank_account"
	}
	return label
}

// usernameNeutral are the labels a user or login name does not contradict:
// many systems log users in by e-mail address, a "user" column may hold
// their names, and last_login is a time.
var usernameNeutral = map[string]bool{LabelEmail: true, LabelPersonName: true, LabelDate: true, LabelDatetime: true}

// identifierKind reports whether a label is itself an identifier (of a
// person, a document, an account or a vehicle), so that an identifier
// name (customer_id, vehicle_id, passport_no) does not contradict it.
func identifierKind(label string) bool {
	switch family(label) {
	case "national_id", "bank_account", LabelVIN, LabelPassport, LabelDriverLic:
		return true
	}
	return false
}

// relation says whether the column name agrees with label, conflicts with it,
// or is neutral. Agreement: some hint is label's family. Conflict: no hint
// agrees and some hint names sensitive data, an identifier (except for
// national ids, which are identifiers), a boolean or money.
func (ni nameInfo) relation(label string) (agree, conflict bool, other string) {
	fam := family(label)
	for h := range ni.hints {
		if family(h) == fam {
			return true, false, ""
		}
	}
	if label == LabelPersonName && ni.weakPersonName {
		return true, false, ""
	}
	// date_of_birth hints are neutral towards plain dates.
	if (label == LabelDate || label == LabelDatetime) && ni.hints[LabelDateOfBirth] {
		return false, false, ""
	}
	best := ""
	for h := range ni.hints {
		if h == LabelIdentifier && identifierKind(label) {
			continue // national ids are identifiers: customer_id holding personnummer
		}
		if h == LabelUsername && usernameNeutral[label] {
			continue
		}
		switch {
		case isSensitiveLabel(h), h == LabelIdentifier, h == LabelBoolean, h == LabelMoney:
			if best == "" || h < best { // deterministic
				best = h
			}
		}
	}
	if best != "" {
		return false, true, best
	}
	return false, false, ""
}

// sensitiveHint returns the personal or special-category label the name points
// at, if any (deterministic choice when several).
func (ni nameInfo) sensitiveHint() string {
	best := ""
	for h := range ni.hints {
		if isSensitiveLabel(h) && h != LabelNationalID && (best == "" || h < best) {
			best = h
		}
	}
	if best == "" && ni.hints[LabelNationalID] {
		best = LabelNationalID
	}
	return best
}
