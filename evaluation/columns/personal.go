package columns

import (
	"strconv"
	"strings"

	"github.com/dqs/dqs/internal/colgen"
)

// personalSpecs are the columns of the personal labels, several per label:
// clean and dirty, several locales and formats, clear, foreign-language,
// misleading and hint-free names, small and large.
func personalSpecs() []spec {
	var s []spec
	s = append(s, emailSpecs()...)
	s = append(s, phoneSpecs()...)
	s = append(s, financialSpecs()...)
	s = append(s, nationalIDSpecs()...)
	s = append(s, ipSpecs()...)
	s = append(s, nameSpecs()...)
	s = append(s, addressSpecs()...)
	s = append(s, demographicSpecs()...)
	s = append(s, geoSpecs()...)
	s = append(s, credentialSpecs()...)
	return s
}

const email = "email"

func anyCultureEmail(g *gen) string { return g.email(g.culture()) }

func emailSpecs() []spec {
	nordic := func(g *gen) string { return g.email(g.culture("sv-SE", "fi-FI", "nb-NO", "da-DK")) }
	return []spec{
		col("email-clean", "email", email, "multi", light, anyCultureEmail),
		col("email-customer", "customer_email", email, "multi", typical, anyCultureEmail).
			testValues("test@test.com", "a@b.c", "noreply@example.com", "test@example.com"),
		col("email-se", "e_post", email, "sv-SE", typical, nordic),
		col("email-fr", "courriel", email, "fr-FR", light, func(g *gen) string { return g.email(g.culture("fr-FR")) }),
		col("email-de", "E-Mail-Adresse", email, "de-DE", typical, func(g *gen) string { return g.email(g.culture("de-DE")) }),
		col("email-nohint", "col7", email, "multi", light, anyCultureEmail).why("no name hint"),
		col("email-login", "username", email, "multi", light, anyCultureEmail).why("e-mail addresses used as logins; name suggests a user name"),
		col("email-display", "recipient", email, "multi", light, func(g *gen) string {
			c := g.culture()
			return g.given(c) + " " + g.surname(c) + " <" + g.email(c) + ">"
		}).why("RFC 5322 display-name form"),
		col("email-mixedcase", "EmailAddress", email, "en-US", noTypos(heavy), func(g *gen) string {
			e := g.email(g.culture("en-US", "en-GB"))
			if g.Chance(0.3) {
				return strings.ToUpper(e[:1]) + e[1:]
			}
			return e
		}),
		col("email-small", "kontakt_epost", email, "sv-SE", light, nordic).rows(18),
		col("email-sparse", "secondary_email", email, "multi", sparse, anyCultureEmail).why("mostly empty"),
		col("email-idn", "mail", email, "de-DE", light, func(g *gen) string {
			c := g.culture("de-DE", "sv-SE")
			if g.Chance(0.3) {
				return strings.ToLower(g.given(c)) + "@" + g.Pick("müller-bau.de", "böcker.se", "straße.de")
			}
			return g.email(c)
		}).why("internationalised domains"),
	}
}

const phone = "phone"

func phoneSpecs() []spec {
	mixed := func(g *gen) string {
		return g.phone(g.Pick("SE", "DE", "GB", "US", "FR", "FI", "NO", "DK"), 1)
	}
	return []spec{
		col("phone-e164", "phone", phone, "multi", light, func(g *gen) string {
			return g.e164("SE", "DE", "GB", "US", "FR", "FI", "NO", "DK")
		}).why("E.164 without separators"),
		col("phone-intl-mixed", "phone_number", phone, "multi", typical, mixed).
			testValues("+1 555 0100", "0000000000", "123456789"),
		col("phone-se", "telefon", phone, "sv-SE", typical, func(g *gen) string { return g.phone("SE", 0.2) }),
		col("phone-se-mobile", "mobilnummer", phone, "sv-SE", light, func(g *gen) string { return g.phone("SE", 0.1) }),
		col("phone-de", "Telefonnummer", phone, "de-DE", typical, func(g *gen) string { return g.phone("DE", 0.3) }),
		col("phone-gb", "mobile", phone, "en-GB", typical, func(g *gen) string { return g.phone("GB", 0.3) }),
		col("phone-us", "phone", phone, "en-US", typical, func(g *gen) string { return g.phone("US", 0.15) }).
			testValues("(555) 555-5555", "000-000-0000", "1234567890"),
		col("phone-us-bare", "cell_phone", phone, "en-US", light, func(g *gen) string {
			return strings.TrimPrefix(g.e164("US"), "+1")
		}).why("ten bare digits, NANP"),
		col("phone-fr", "téléphone", phone, "fr-FR", typical, func(g *gen) string { return g.phone("FR", 0.25) }),
		col("phone-fi", "puhelin", phone, "fi-FI", typical, func(g *gen) string { return g.phone("FI", 0.3) }),
		col("phone-no", "tlf", phone, "nb-NO", light, func(g *gen) string { return g.phone("NO", 0.4) }),
		col("phone-dk", "telefon_nr", phone, "da-DK", light, func(g *gen) string { return g.phone("DK", 0.4) }),
		col("phone-nohint", "col12", phone, "multi", light, mixed).why("no name hint"),
		col("phone-contact", "contact", phone, "multi", typical, func(g *gen) string {
			return g.phone(g.Pick("SE", "DE", "GB", "FR"), 0.5)
		}).why("vague name"),
		col("phone-msisdn", "msisdn", phone, "multi", clean, func(g *gen) string {
			return strings.TrimPrefix(g.e164("SE", "FI", "DE", "GB", "NO"), "+")
		}).why("E.164 stored without the plus"),
		col("phone-small", "mobil", phone, "sv-SE", light, func(g *gen) string { return g.phone("SE", 0.3) }).rows(22),
		col("phone-heavy", "Phone", phone, "en-GB", heavy, func(g *gen) string { return g.phone(g.Pick("GB", "US"), 0.4) }).
			testValues("n/a - ask", "ext. 123", "01234"),
	}
}

func financialSpecs() []spec {
	brands := func(bs ...string) func(g *gen) string {
		return func(g *gen) string { return g.Pick(bs...) }
	}
	card := func(brand func(g *gen) string, styles ...string) func(g *gen) string {
		return func(g *gen) string { return colgen.FormatPAN(g.card(brand(g)), g.Pick(styles...)) }
	}
	all := brands("visa", "visa", "visa", "mastercard", "mastercard", "amex", "discover", "jcb", "maestro", "diners", "unionpay")
	cardTests := []string{"4111 1111 1111 1111", "4242424242424242", "5555 5555 5555 4444", "0000 0000 0000 0000", "1234 5678 9012 3456"}
	ibanOf := func(ccs ...string) func(g *gen) string { return func(g *gen) string { return g.iban(g.Pick(ccs...)) } }
	spaced := func(f func(g *gen) string) func(g *gen) string {
		return func(g *gen) string { return colgen.Every4(f(g), " ") }
	}
	return []spec{
		col("card-mixed", "card_number", "payment_card", "multi", typical, card(all, "bare", "space", "dash")).testValues(cardTests...),
		col("card-se", "kortnummer", "payment_card", "sv-SE", light, card(brands("visa", "mastercard"), "space")),
		col("card-amex", "cc_num", "payment_card", "en-US", light, card(brands("amex", "amex", "visa"), "bare", "space")),
		col("card-nohint", "col3", "payment_card", "multi", light, card(all, "space", "dash")).why("no name hint"),
		col("card-pan", "pan", "payment_card", "multi", clean, card(all, "bare")),
		col("card-small", "credit_card", "payment_card", "en-GB", light, card(brands("visa", "mastercard"), "space")).rows(17),
		col("card-dash", "Kreditkartennummer", "payment_card", "de-DE", typical, card(brands("visa", "mastercard", "maestro"), "dash")).testValues(cardTests...),

		col("iban-mixed", "iban", "iban", "multi", typical, spaced(ibanOf("SE", "DE", "GB", "FR", "FI", "NO", "DK", "NL", "ES", "IT"))),
		col("iban-compact", "IBAN", "iban", "multi", light, ibanOf("DE", "AT", "CH", "BE", "PL", "IE")),
		col("iban-se", "kontonummer", "iban", "sv-SE", light, oneOf(ibanOf("SE"), spaced(ibanOf("SE")))),
		col("iban-nohint", "account", "iban", "multi", light, spaced(ibanOf("GB", "IE", "NL", "FR"))).why("vague name"),
		col("iban-fi", "tilinumero", "iban", "fi-FI", typical, spaced(ibanOf("FI"))),
		col("iban-lower", "bank_account", "iban", "multi", noTypos(heavy), func(g *gen) string {
			v := colgen.Every4(g.iban(g.Pick("ES", "IT", "DE")), " ")
			if g.Chance(0.2) {
				return strings.ToLower(v)
			}
			return v
		}),
		col("iban-col", "c_14", "iban", "multi", clean, ibanOf("NO", "DK", "FI", "SE")).rows(25).why("no name hint, small"),
	}
}

func nationalIDSpecs() []spec {
	sePnr := func(forms ...string) func(g *gen) string {
		return func(g *gen) string { return g.sePnr(g.Pick(forms...)) }
	}
	return []spec{
		col("ssn-dashed", "ssn", "national_id_us_ssn", "en-US", typical, (*gen).ssn).testValues("123-45-6789", "000-00-0000", "078-05-1120"),
		col("ssn-long", "social_security_number", "national_id_us_ssn", "en-US", light, (*gen).ssn),
		col("ssn-bare", "SSN", "national_id_us_ssn", "en-US", light, func(g *gen) string { return strings.ReplaceAll(g.ssn(), "-", "") }).why("nine bare digits"),
		col("ssn-nohint", "field_4", "national_id_us_ssn", "en-US", light, (*gen).ssn).why("no name hint"),
		col("ssn-small", "employee_ssn", "national_id_us_ssn", "en-US", light, (*gen).ssn).rows(20),

		col("pnr-short", "personnummer", "national_id_se_personnummer", "sv-SE", typical, sePnr("short")).testValues("19121212-1212", "121212-1212", "000000-0000"),
		col("pnr-long", "pnr", "national_id_se_personnummer", "sv-SE", light, sePnr("long", "digits12")),
		col("pnr-mixed", "Personnr", "national_id_se_personnummer", "sv-SE", heavy, sePnr("short", "long", "digits12", "digits10")),
		col("pnr-nohint", "kolumn5", "national_id_se_personnummer", "sv-SE", light, sePnr("long")).why("no name hint"),
		col("pnr-customerid", "customer_id", "national_id_se_personnummer", "sv-SE", light, sePnr("digits12")).why("personnummer used as customer key; name says identifier"),
		col("pnr-small", "personnummer", "national_id_se_personnummer", "sv-SE", light, sePnr("short")).rows(16),

		col("hetu-clean", "henkilotunnus", "national_id_fi_hetu", "fi-FI", light, (*gen).fiHetu),
		col("hetu-short", "hetu", "national_id_fi_hetu", "fi-FI", typical, (*gen).fiHetu).testValues("010101-123N", "131052-308T"),
		col("hetu-nohint", "tunniste", "national_id_fi_hetu", "fi-FI", light, (*gen).fiHetu).why("Finnish for identifier"),
		col("hetu-lower", "sotu", "national_id_fi_hetu", "fi-FI", noTypos(heavy), (*gen).fiHetu),

		col("fnr-clean", "fodselsnummer", "national_id_no_fodselsnummer", "nb-NO", light, (*gen).noFnr),
		col("fnr-short", "fnr", "national_id_no_fodselsnummer", "nb-NO", typical, (*gen).noFnr),
		col("fnr-personnummer", "personnummer", "national_id_no_fodselsnummer", "nb-NO", light, func(g *gen) string {
			v := g.noFnr()
			if g.Chance(0.3) {
				return v[:6] + " " + v[6:]
			}
			return v
		}).why("Norwegian export using the Swedish-looking word"),
		col("fnr-nohint", "id_11", "national_id_no_fodselsnummer", "nb-NO", light, (*gen).noFnr).why("no name hint"),

		col("cpr-dashed", "cpr_nr", "national_id_dk_cpr", "da-DK", typical, (*gen).dkCPR),
		col("cpr-bare", "CPR", "national_id_dk_cpr", "da-DK", light, func(g *gen) string { return strings.ReplaceAll(g.dkCPR(), "-", "") }),
		col("cpr-personnummer", "personnummer", "national_id_dk_cpr", "da-DK", light, (*gen).dkCPR).why("Danish export using the generic word"),
		col("cpr-nohint", "kunde_ref", "national_id_dk_cpr", "da-DK", light, (*gen).dkCPR).why("name says reference"),
	}
}

func ipSpecs() []spec {
	v4, v6 := (*gen).ipv4, (*gen).ipv6
	return []spec{
		col("ip-v4", "ip_address", "ip_address", "-", light, v4),
		col("ip-client", "client_ip", "ip_address", "-", typical, oneOf(v4, v4, v4, v6)).testValues("127.0.0.1", "0.0.0.0", "::1"),
		col("ip-v6", "ipv6", "ip_address", "-", light, v6),
		col("ip-remote", "remote_addr", "ip_address", "-", light, v4),
		col("ip-nohint", "source", "ip_address", "-", light, oneOf(v4, v6)).why("vague name"),
		col("ip-de", "IP-Adresse", "ip_address", "de-DE", typical, v4),
		col("ip-port", "peer_addr", "ip_address", "-", light, func(g *gen) string {
			port := strconv.Itoa(g.Between(1024, 65535))
			if g.Chance(0.2) {
				return "[" + g.ipv6() + "]:" + port
			}
			return g.ipv4() + ":" + port
		}).why("address and port, as servers log them"),
		col("ip-small", "last_login_ip", "ip_address", "-", light, v4).rows(24),
	}
}

func nameSpecs() []spec {
	full := func(locales ...string) func(g *gen) string {
		return func(g *gen) string { return g.fullName(g.culture(locales...)) }
	}
	given := func(locales ...string) func(g *gen) string {
		return func(g *gen) string { return g.given(g.culture(locales...)) }
	}
	sur := func(locales ...string) func(g *gen) string {
		return func(g *gen) string { return g.surname(g.culture(locales...)) }
	}
	const pn = "person_name"
	return []spec{
		col("name-full-multi", "full_name", pn, "multi", typical, full()),
		col("name-name", "name", pn, "multi", light, full()),
		col("name-customer", "customer_name", pn, "multi", typical, full("en-GB", "en-US", "de-DE", "fr-FR")),
		col("name-se-first", "förnamn", pn, "sv-SE", light, given("sv-SE")),
		col("name-se-last", "efternamn", pn, "sv-SE", light, sur("sv-SE")),
		col("name-fi", "nimi", pn, "fi-FI", typical, full("fi-FI")),
		col("name-de-first", "Vorname", pn, "de-DE", light, given("de-DE", "tr-TR", "pl-PL")),
		col("name-de-last", "Nachname", pn, "de-DE", typical, sur("de-DE", "tr-TR", "pl-PL")),
		col("name-fr", "prenom", pn, "fr-FR", light, given("fr-FR", "ar")),
		col("name-first-en", "first_name", pn, "multi", typical, given()),
		col("name-last-en", "last_name", pn, "multi", typical, sur()),
		col("name-upper", "NAMN", pn, "sv-SE", noRecase(light), func(g *gen) string {
			return strings.ToUpper(g.fullName(g.culture("sv-SE", "fi-FI")))
		}).why("all capitals, as legacy systems store them"),
		col("name-asian", "contact_person", pn, "multi", light, full("zh", "ja-JP", "vi-VN", "hi-IN")),
		col("name-africa-arab", "holder", pn, "multi", light, full("yo-NG", "ar")).why("name token 'holder' only"),
		col("name-nohint", "col6", pn, "multi", light, full()).why("no name hint"),
		col("name-nohint-nordic", "c2", pn, "sv-SE", light, full("sv-SE", "nb-NO", "da-DK", "fi-FI")).why("no name hint"),
		col("name-lastfirst", "patient", pn, "multi", typical, func(g *gen) string {
			c := g.culture()
			return g.surname(c) + ", " + g.given(c)
		}),
		col("name-small", "kontaktperson", pn, "sv-SE", light, full("sv-SE")).rows(19),
		col("name-es", "nombre_completo", pn, "es-ES", light, full("es-ES", "pt-BR")),
		col("name-owner", "account_owner", pn, "multi", heavy, full()),
	}
}

func addressSpecs() []spec {
	street := func(ccs ...string) func(g *gen) string {
		return func(g *gen) string { return g.street(g.Pick(ccs...)) }
	}
	full := func(ccs ...string) func(g *gen) string {
		return func(g *gen) string { return g.fullAddress(g.Pick(ccs...)) }
	}
	postal := func(ccs ...string) func(g *gen) string {
		return func(g *gen) string { return g.postal(g.Pick(ccs...)) }
	}
	const sa, pc = "street_address", "postal_code"
	return []spec{
		col("street-se", "gatuadress", sa, "sv-SE", typical, street("SE")),
		col("street-de", "Straße", sa, "de-DE", typical, street("DE")),
		col("street-fr", "adresse", sa, "fr-FR", light, street("FR")),
		col("street-gb", "address_line_1", sa, "en-GB", typical, street("GB")),
		col("street-us", "street_address", sa, "en-US", typical, street("US")),
		col("street-nordic", "osoite", sa, "fi-FI", light, street("FI", "NO", "DK")),
		col("street-multi", "address", sa, "multi", light, street("SE", "DE", "FR", "GB", "US", "NL", "ES", "IT", "NO", "DK", "FI")),
		col("street-full", "billing_address", sa, "multi", typical, full("SE", "DE", "FR", "GB", "US", "FI")).why("street, postal code and city in one field"),
		col("street-nohint", "col_11", sa, "multi", light, full("SE", "DE", "GB", "US")).why("no name hint"),
		col("street-small", "adress", sa, "sv-SE", light, street("SE")).rows(21),
		col("street-es-it", "direccion", sa, "es-ES", light, street("ES", "IT")),

		col("postal-se", "postnummer", pc, "sv-SE", typical, postal("SE")),
		col("postal-de", "PLZ", pc, "de-DE", light, postal("DE")),
		col("postal-gb", "postcode", pc, "en-GB", typical, postal("GB")),
		col("postal-us", "zip", pc, "en-US", typical, postal("US")),
		col("postal-fi", "postinumero", pc, "fi-FI", light, postal("FI")),
		col("postal-nodk", "postnr", pc, "nb-NO", light, postal("NO", "DK")),
		col("postal-multi", "postal_code", pc, "multi", typical, postal("SE", "DE", "GB", "US", "FR", "NL", "CA", "PL", "FI")),
		col("postal-fr", "code_postal", pc, "fr-FR", light, postal("FR")),
		col("postal-small", "zip_code", pc, "en-US", light, postal("US")).rows(20),
	}
}

func demographicSpecs() []spec {
	layout := func(layouts ...string) func(g *gen) string {
		return func(g *gen) string { return g.birthDate().Format(g.Pick(layouts...)) }
	}
	genders := func(vs ...string) func(g *gen) string { return fixed(vs...) }
	ageOf := func(lo, hi int) func(g *gen) string {
		return func(g *gen) string { return strconv.Itoa(lo + int(float64(hi-lo)*(g.Float64()+g.Float64())/2)) }
	}
	const dob, gender, age = "date_of_birth", "gender", "age"
	return []spec{
		col("dob-iso", "date_of_birth", dob, "-", typical, layout("2006-01-02")).testValues("1900-01-01", "1970-01-01"),
		col("dob-se", "födelsedatum", dob, "sv-SE", light, layout("2006-01-02", "20060102")),
		col("dob-de", "Geburtsdatum", dob, "de-DE", typical, layout("02.01.2006")),
		col("dob-us", "dob", dob, "en-US", light, layout("01/02/2006", "1/2/2006")),
		col("dob-gb", "birth_date", dob, "en-GB", light, layout("02/01/2006", "2 January 2006")),
		col("dob-fr", "date_naissance", dob, "fr-FR", light, layout("02/01/2006")),
		col("dob-fi", "syntymäaika", dob, "fi-FI", light, layout("2.1.2006", "02.01.2006")),
		col("dob-db", "birthdate", dob, "-", light, layout("2006-01-02 00:00:00", "2006-01-02T00:00:00Z")).why("DATE exported as a midnight timestamp"),
		col("dob-short-year", "geb_datum", dob, "de-DE", light, layout("02.01.06")).why("two-digit years"),
		col("dob-small", "fødselsdato", dob, "da-DK", light, layout("02-01-2006")).rows(23),
		col("dob-text", "birthday", dob, "en-US", light, layout("January 2, 2006", "Jan 2, 2006")),

		col("gender-en", "gender", gender, "en-US", typical, genders("Female", "Male", "Other", "Prefer not to say", "Non-binary")),
		col("gender-letters", "sex", gender, "-", typical, genders("F", "M", "M", "F", "U", "X")),
		col("gender-se", "kön", gender, "sv-SE", light, genders("Kvinna", "Man", "Annat", "Vill ej uppge")),
		col("gender-de", "Geschlecht", gender, "de-DE", typical, genders("weiblich", "männlich", "divers", "w", "m", "d")),
		col("gender-fr", "sexe", gender, "fr-FR", light, genders("Femme", "Homme", "F", "H", "Autre")),
		col("gender-fi", "sukupuoli", gender, "fi-FI", light, genders("nainen", "mies", "muu", "ei tiedossa")),
		col("gender-iso", "sex_code", gender, "-", light, genders("2", "1", "1", "2", "0", "9")).why("ISO/IEC 5218 codes"),
		col("gender-nohint", "col_g", gender, "en-GB", light, genders("female", "male", "Female", "Male", "other")).why("no name hint"),
		col("gender-small", "kjønn", gender, "nb-NO", clean, genders("Kvinne", "Mann")).rows(15),

		col("age-en", "age", age, "-", typical, ageOf(0, 100)),
		col("age-group-bands", "age_group", age, "-", light, fixed("25-34", "35-44", "18-24", "45-54", "55-64", "65+")).why("age bands: a person's age, told less exactly"),
		col("age-se", "ålder", age, "sv-SE", light, ageOf(18, 95)),
		col("age-de", "Alter", age, "de-DE", light, ageOf(16, 90)),
		col("age-fi", "ikä", age, "fi-FI", light, ageOf(0, 100)),
		col("age-customer", "customer_age", age, "-", typical, ageOf(18, 80)),
		col("age-float", "age_years", age, "-", light, func(g *gen) string { return ageOf(18, 90)(g) + ".0" }).why("integers exported as floats"),
		col("age-small", "patient_age", age, "-", light, ageOf(1, 99)).rows(26),
	}
}

func geoSpecs() []spec {
	type place struct{ lat, lon float64 }
	near := func(g *gen) place {
		centers := []place{{59.33, 18.07}, {60.17, 24.94}, {59.91, 10.75}, {55.68, 12.57}, {52.52, 13.40}, {48.86, 2.35},
			{51.51, -0.13}, {40.71, -74.01}, {34.05, -118.24}, {-33.87, 151.21}, {35.68, 139.69}, {-23.55, -46.63}}
		c := centers[g.IntN(len(centers))]
		return place{c.lat + g.Float(-0.5, 0.5), c.lon + g.Float(-0.8, 0.8)}
	}
	pair := func(formats ...string) func(g *gen) string {
		return func(g *gen) string {
			p := near(g)
			d := g.Between(4, 7)
			la, lo := num(p.lat, d), num(p.lon, d)
			switch g.Pick(formats...) {
			case "comma":
				return la + "," + lo
			case "comma-space":
				return la + ", " + lo
			case "paren":
				return "(" + la + ", " + lo + ")"
			case "semicolon":
				return la + ";" + lo
			case "point":
				return "POINT(" + lo + " " + la + ")"
			}
			return la + " " + lo
		}
	}
	lat := func(g *gen) string { return num(near(g).lat, g.Between(4, 6)) }
	lon := func(g *gen) string { return num(near(g).lon, g.Between(4, 6)) }
	const geo = "geolocation"
	return []spec{
		col("geo-pair", "location", geo, "-", light, pair("comma-space", "comma")),
		col("geo-coords", "coordinates", geo, "-", typical, pair("paren", "comma-space")),
		col("geo-point", "geom", geo, "-", light, pair("point")).why("WKT"),
		col("geo-lat", "latitude", geo, "-", light, lat),
		col("geo-lon", "lng", geo, "-", light, lon),
		col("geo-se", "koordinater", geo, "sv-SE", light, pair("semicolon", "space")),
		col("geo-nohint", "col_9", geo, "-", light, pair("comma-space")).why("no name hint"),
		col("geo-small", "gps", geo, "-", clean, pair("comma")).rows(20),
		col("geo-lat-short", "lat", geo, "-", typical, lat),
	}
}

func credentialSpecs() []spec {
	hexDigest := func(n int) func(g *gen) string { return func(g *gen) string { return g.HexString(n) } }
	const pw, ph, sec = "password", "password_hash", "secret"
	return []spec{
		col("pw-en", "password", pw, "-", light, (*gen).password),
		col("pw-se", "lösenord", pw, "sv-SE", light, (*gen).password),
		col("pw-de", "Passwort", pw, "de-DE", typical, (*gen).password),
		col("pw-short", "pwd", pw, "-", typical, (*gen).password),
		col("pw-user", "user_pass", pw, "-", light, (*gen).password).rows(28),
		col("pw-fi", "salasana", pw, "fi-FI", light, (*gen).password),

		col("hash-bcrypt", "password_hash", ph, "-", light, (*gen).bcrypt),
		col("hash-argon", "pwd_hash", ph, "-", light, (*gen).argon2),
		col("hash-mixed", "hashed_password", ph, "-", typical, oneOf((*gen).bcrypt, (*gen).argon2, (*gen).shaCrypt, (*gen).djangoHash)).why("migrated users: several algorithms"),
		col("hash-nohint", "col_h", ph, "-", light, (*gen).bcrypt).why("no name hint"),
		col("hash-sha256", "password_sha256", ph, "-", light, hexDigest(64)),
		col("hash-md5", "pw_md5", ph, "-", light, hexDigest(32)).rows(27),
		col("hash-django", "password", ph, "-", light, (*gen).djangoHash).why("Django auth_user.password holds hashes"),

		col("secret-api", "api_key", sec, "-", light, (*gen).apiKey),
		col("secret-nohint", "value", sec, "-", light, (*gen).apiKey).why("no name hint"),
		col("secret-token", "access_token", sec, "-", light, func(g *gen) string { return g.Chars(40, colgen.Alnum) }),
		col("secret-jwt", "id_token", sec, "-", light, (*gen).jwt),
		col("secret-hex", "client_secret", sec, "-", light, hexDigest(64)),
		col("secret-refresh", "refresh_token", sec, "-", typical, func(g *gen) string { return g.Chars(g.Between(43, 64), colgen.Base64URL) }),
		col("secret-webhook", "webhook_secret", sec, "-", light, func(g *gen) string { return "whsec_" + g.Chars(32, colgen.Alnum) }).rows(24),
	}
}
