package columns

import "encoding/base64"

// specialSpecs are the columns of the special categories of GDPR Art. 9.
// Values alone rarely prove them (a list of diseases could be a reference
// table), so, as the product documents, each has a hint in its name — in
// English or another language.
func specialSpecs() []spec {
	icd := fixed("E11.9", "I10", "J45.909", "F32.1", "M54.5", "K21.0", "E78.5", "F41.1", "J06.9", "N39.0",
		"G43.909", "E66.9", "I25.10", "C50.911", "Z00.00", "R51", "L40.0", "F90.0", "E03.9", "M17.11", "J44.9",
		"I48.91", "F33.0", "K58.9", "E10.9")
	icdText := fixed("E11.9 Type 2 diabetes mellitus without complications", "I10 Essential (primary) hypertension",
		"J45.909 Unspecified asthma, uncomplicated", "F32.1 Major depressive disorder, single episode, moderate",
		"M54.5 Low back pain", "K21.0 Gastro-esophageal reflux disease with esophagitis", "F41.1 Generalized anxiety disorder",
		"J44.9 Chronic obstructive pulmonary disease, unspecified", "E66.9 Obesity, unspecified", "G43.909 Migraine, unspecified")
	const h, r, e, o, p, b, u = "health", "religion", "ethnicity", "sexual_orientation", "political_opinion", "biometric", "trade_union"
	return []spec{
		col("health-icd", "diagnosis_code", h, "-", typical, icd),
		col("health-icd-text", "diagnosis", h, "en-US", light, icdText).why("code and description"),
		col("health-se", "diagnos", h, "sv-SE", light, fixed("Diabetes typ 2", "Astma", "Högt blodtryck", "Depression", "KOL", "Migrän", "Ingen", "Epilepsi", "Reumatism", "Diabetes typ 1")),
		col("health-de", "Vorerkrankungen", h, "de-DE", typical, fixed("keine", "Diabetes mellitus Typ 2", "Asthma", "Bluthochdruck", "Depression", "Migräne", "Herzinsuffizienz", "Arthrose")),
		col("health-en", "medical_condition", h, "en-GB", typical, fixed("None", "Asthma", "Type 2 diabetes", "Hypertension", "Depression", "Anxiety", "Epilepsy", "Migraine", "COPD", "Arthritis", "Coeliac disease")),
		col("health-allergy", "allergies", h, "en-US", light, fixed("None", "Peanuts", "Penicillin", "Pollen", "Lactose", "Shellfish", "Gluten", "Tree nuts", "Latex", "Eggs", "Bee stings")),
		col("health-med", "medication", h, "en-GB", light, fixed("Metformin 500 mg", "Atorvastatin 20mg", "Lisinopril 10 mg", "Salbutamol inhaler", "Sertraline 50mg", "Levothyroxine 50 mcg", "Omeprazole 20 mg", "Ibuprofen 400mg", "None")),
		col("health-blood", "blood_type", h, "-", light, fixed("O+", "A+", "B+", "AB+", "O-", "A-", "B-", "AB-")),
		col("health-bp", "blood_pressure", h, "-", typical, func(g *gen) string {
			sys := g.Between(95, 180)
			return sprintf("%d/%d", sys, sys-g.Between(30, 70))
		}),
		col("health-small", "icd10", h, "-", light, icd).rows(18),
		col("health-fi", "sairaus", h, "fi-FI", light, fixed("Diabetes", "Astma", "Verenpainetauti", "Masennus", "Ei", "Migreeni", "Sepelvaltimotauti")),

		col("religion-en", "religion", r, "en-GB", typical, fixed("Christian", "No religion", "Muslim", "Prefer not to say", "Hindu", "Jewish", "Buddhist", "Sikh", "Other")),
		col("religion-se", "trosuppfattning", r, "sv-SE", light, fixed("Svenska kyrkan", "Ingen", "Katolik", "Muslim", "Ateist", "Ortodox", "Annan")),
		col("religion-de", "Konfession", r, "de-DE", light, fixed("evangelisch", "römisch-katholisch", "konfessionslos", "muslimisch", "orthodox", "jüdisch")),
		col("religion-fr", "religion", r, "fr-FR", light, fixed("catholique", "sans religion", "musulman", "protestant", "juif", "bouddhiste")),
		col("religion-fi", "uskonto", r, "fi-FI", light, fixed("evankelis-luterilainen", "ei uskontokuntaa", "ortodoksinen", "muu")),
		col("religion-small", "faith", r, "en-US", clean, fixed("Catholic", "Protestant", "Muslim", "None", "Jewish", "Mormon")).rows(20),

		col("ethnicity-us", "race", e, "en-US", typical, fixed("White", "Black or African American", "Asian", "Two or More Races", "American Indian or Alaska Native", "Native Hawaiian or Other Pacific Islander", "Other", "Declined to state")),
		col("ethnicity-hisp", "ethnicity", e, "en-US", light, fixed("Not Hispanic or Latino", "Hispanic or Latino", "Unknown")),
		col("ethnicity-uk", "ethnic_group", e, "en-GB", light, fixed("White - British", "White - Irish", "White - Any other White background", "Asian or Asian British - Indian",
			"Asian or Asian British - Pakistani", "Black or Black British - Caribbean", "Black or Black British - African", "Mixed - White and Asian", "Chinese", "Prefer not to say")),
		col("ethnicity-origin", "ethnic_origin", e, "en-US", light, fixed("Caucasian", "Hispanic", "African American", "Asian", "Middle Eastern", "Native American", "Pacific Islander", "Mixed")),
		col("ethnicity-small", "patient_race", e, "en-US", clean, fixed("White", "Black", "Asian", "Hispanic", "Other")).rows(22),

		col("orientation-en", "sexual_orientation", o, "en-GB", typical, fixed("Heterosexual or straight", "Gay or lesbian", "Bisexual", "Prefer not to say", "Other sexual orientation")),
		col("orientation-se", "sexuell_läggning", o, "sv-SE", light, fixed("Heterosexuell", "Homosexuell", "Bisexuell", "Vill inte uppge", "Annan")),
		col("orientation-de", "sexuelle_Orientierung", o, "de-DE", light, fixed("heterosexuell", "homosexuell", "bisexuell", "keine Angabe", "asexuell")),
		col("orientation-short", "sexuality", o, "en-US", light, fixed("Straight", "Gay", "Lesbian", "Bisexual", "Queer", "Asexual", "Pansexual")),

		col("political-us", "party_affiliation", p, "en-US", typical, fixed("Democrat", "Republican", "Independent", "Libertarian", "Green", "Unaffiliated")),
		col("political-se", "parti", p, "sv-SE", light, fixed("Socialdemokraterna", "Moderaterna", "Sverigedemokraterna", "Vänsterpartiet", "Centerpartiet", "Kristdemokraterna", "Liberalerna", "Miljöpartiet")),
		col("political-de", "Partei", p, "de-DE", light, fixed("CDU", "SPD", "Grüne", "AfD", "FDP", "Die Linke", "CSU", "BSW")),
		col("political-uk", "voting_intention", p, "en-GB", typical, fixed("Labour", "Conservative", "Reform UK", "Liberal Democrat", "Green", "SNP", "Don't know", "Would not vote")),
		col("political-fi", "puolue", p, "fi-FI", light, fixed("Kokoomus", "SDP", "Perussuomalaiset", "Keskusta", "Vihreät", "Vasemmistoliitto", "RKP")),

		col("bio-face", "face_embedding", b, "-", clean, func(g *gen) string { return g.Vector(16) }).rows(150),
		col("bio-finger", "fingerprint_template", b, "-", clean, func(g *gen) string { return base64.StdEncoding.EncodeToString(g.Bytes(96)) }).rows(200),
		col("bio-voice", "voiceprint", b, "-", light, func(g *gen) string { return base64.StdEncoding.EncodeToString(g.Bytes(64)) }).rows(120),
		col("bio-iris", "iris_code", b, "-", clean, func(g *gen) string { return g.HexString(128) }).rows(100),

		col("union-flag", "union_member", u, "en-GB", typical, fixed("no", "yes")),
		col("union-se", "fackförbund", u, "sv-SE", light, fixed("Unionen", "IF Metall", "Kommunal", "Vision", "Lärarförbundet", "Handels", "Ingen", "Akademikerförbundet SSR")),
		col("union-de", "Gewerkschaft", u, "de-DE", light, fixed("ver.di", "IG Metall", "GEW", "IG BCE", "keine", "NGG", "EVG")),
		col("union-uk", "trade_union", u, "en-GB", light, fixed("Unite", "UNISON", "GMB", "None", "RMT", "NEU", "Usdaw", "PCS")),
		col("union-fi", "ammattiliitto", u, "fi-FI", light, fixed("JHL", "Tehy", "PAM", "Pro", "Teollisuusliitto", "Ei", "Akava")),
		col("union-small", "fagforening", u, "nb-NO", clean, fixed("Fagforbundet", "Fellesforbundet", "Ingen", "Handel og Kontor")).rows(21),
	}
}
