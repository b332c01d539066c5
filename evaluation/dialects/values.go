package dialects

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// values draws cell values. Text comes from small vocabularies shaped like
// real exports: accented names, apostrophes, inch marks, and notes with
// commas, semicolons, pipes, quotes and line breaks in them.
type values struct {
	r        *rng
	european bool // decimal commas, dd.mm.yyyy dates, German labels
	latin1   bool // only text windows-1252 can encode
}

var (
	firstNames = []string{"Anna", "José", "Zoë", "Søren", "François", "Björn", "Mário", "Chloé", "Jürgen", "Ingrid", "Liam", "Noah", "Emma", "Olivia", "Lukas", "Élodie", "Renée", "Ñuño"}
	lastNames  = []string{"Müller", "O'Neil", "García", "Ødegaard", "Dubois", "Smith", "Schäfer", "Fernández", "Johansson", "D'Arcy", "Brown", "Jensen", "Martín", "Koç", "Weiß"}
	cities     = []string{"Zürich", "São Paulo", "Kraków", "København", "Málaga", "Reykjavík", "Oslo", "Berlin", "Paris", "Genève", "Tromsø", "New York", "Montréal", "Köln"}
	// wideCities need more than windows-1252.
	wideCities = []string{"Łódź", "北京", "Αθήνα", "Москва", "İstanbul", "Hà Nội"}
	countries  = []string{"DE", "FR", "NO", "DK", "ES", "BR", "PL", "US", "CH", "IS"}
	regions    = []string{"North", "South", "East", "West", "Central"}
	products   = []string{"Widget", "Gadget", "Café crème", "Crème brûlée", "Monitor 27\"", "Pipe 3/4\"", "Cable 5'", "Chair, oak", "Desk; walnut", "Bier 0,5 l", "Smørrebrød", "Plate | round", "Über-Box", "€uro sign mug"}
	notes      = []string{"", "", "ok", "Delivered late, customer called", "Said \"thanks\"", "\"Rush\" order", "Line one\nline two", "Paid; receipt missing", "Gift wrap | blue", "Returned 2 of 3", "Address:\nHauptstraße 5\n50667 Köln", "Größe 42 – passt nicht", "5'10\" tall", "See note 'A'", "Line one\r\nline two (Windows)"}
	levels     = []string{"INFO", "WARN", "ERROR", "DEBUG"}
	services   = []string{"api", "billing", "auth", "search"}
	messages   = []string{"request served", "slow query, 1200 ms", "user \"admin\" logged in", "retrying; attempt 2", "cache miss | key=42", "timeout\ncaused by: upstream", "payment declined: card 'expired'", "ok"}
	categories = []string{"Tools", "Office", "Kitchen", "Garden", "Toys"}
	booleans   = []string{"true", "false"}
)

func (v values) city() string {
	if !v.latin1 && v.r.chance(20) {
		return pick(v.r, wideCities)
	}
	return pick(v.r, cities)
}

var sentences = []string{
	"The printer on floor 3 is offline again.",
	"Customer says: \"it worked yesterday\", please check.",
	"Steps: open app, click Save; nothing happens.",
	"Attached log | see below",
	"Invoice #4411 was charged twice (€49,90 each).",
	"Can't log in since the update.",
	"Thanks, Zoë",
}

// paragraphs is a long support-ticket body: lines and blank-line
// separated paragraphs, with commas, quotes and semicolons.
func (v values) paragraphs() string {
	var b strings.Builder
	for p := v.r.between(2, 6); p > 0; p-- {
		for n := v.r.between(2, 8); n > 0; n-- {
			b.WriteString(pick(v.r, sentences))
			b.WriteString("\n")
		}
		if p > 1 {
			b.WriteString("\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (v values) name() string {
	return pick(v.r, firstNames) + " " + pick(v.r, lastNames)
}

// number formats x with the given decimals, with a decimal comma (and a
// '.' thousands separator) in European files, and sometimes a ','
// thousands separator elsewhere.
func (v values) number(x float64, decimals int) string {
	s := strconv.FormatFloat(x, 'f', decimals, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	if v.european {
		intPart = groupThousands(intPart, ".")
		if decimals == 0 {
			return intPart
		}
		return intPart + "," + frac
	}
	if x >= 1000 && v.r.chance(30) {
		intPart = groupThousands(intPart, ",")
	}
	if decimals == 0 {
		return intPart
	}
	return intPart + "." + frac
}

func groupThousands(digits, sep string) string {
	neg := strings.HasPrefix(digits, "-")
	digits = strings.TrimPrefix(digits, "-")
	var b strings.Builder
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteString(sep)
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func (v values) money(lo, hi int) string {
	cents := v.r.between(lo*100, hi*100)
	return v.number(float64(cents)/100, 2)
}

var epoch = time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC)

func (v values) date(row int) string {
	d := epoch.AddDate(0, 0, row%400)
	if v.european {
		return d.Format("02.01.2006")
	}
	return d.Format("2006-01-02")
}

func (v values) timestamp(row int) string {
	return epoch.Add(time.Duration(row*97+v.r.intn(60)) * time.Second).Format(time.RFC3339)
}

// column is one column of a schema: its header label and a value source.
type column struct {
	label string
	value func(v values, row int) string
}

func col(label string, value func(v values, row int) string) column {
	return column{label, value}
}

// localized picks the German label in European files.
func (v values) localized(en, de string) string {
	if v.european {
		return de
	}
	return en
}

// schema builds the columns of one kind of table.
type schema struct {
	name string
	// typed says the table has number or date columns, which tell its
	// first row from a header, so it may be written without one.
	typed bool
	// longRows marks rows of about a kilobyte; random cases draw a tenth
	// as many, to keep files at a few hundred KiB at most.
	longRows bool
	columns  func(v values) []column
}

// singleColumn reports whether the table has one column.
func (sc schema) singleColumn() bool {
	return len(sc.columns(values{r: &rng{}})) == 1
}

var (
	sales = schema{"sales", true, false, func(v values) []column {
		return []column{
			col(v.localized("order_id", "Bestellnr"), func(v values, row int) string { return strconv.Itoa(100001 + row) }),
			col(v.localized("order_date", "Datum"), func(v values, row int) string { return v.date(row / 3) }),
			col("Region", func(v values, _ int) string { return pick(v.r, regions) }),
			col(v.localized("Product", "Artikel"), func(v values, _ int) string { return pick(v.r, products) }),
			col(v.localized("Qty", "Menge"), func(v values, _ int) string { return strconv.Itoa(v.r.between(1, 40)) }),
			col(v.localized("Unit price", "Einzelpreis (€)"), func(v values, _ int) string { return v.money(1, 2500) }),
			col(v.localized("Note", "Bemerkung"), func(v values, _ int) string { return pick(v.r, notes) }),
		}
	}}
	customers = schema{"customers", true, false, func(v values) []column {
		return []column{
			col("Customer ID", func(v values, row int) string { return fmt.Sprintf("C-%05d", row+1) }),
			col("Name", func(v values, _ int) string { return v.name() }),
			col("Email", func(v values, row int) string { return fmt.Sprintf("user%d@example.com", row+1) }),
			col("City", func(v values, _ int) string { return v.city() }),
			col("Country", func(v values, _ int) string { return pick(v.r, countries) }),
			col("Signed up", func(v values, row int) string { return v.date(row * 2) }),
			col("Notes", func(v values, _ int) string { return pick(v.r, notes) }),
		}
	}}
	sensors = schema{"sensors", true, false, func(v values) []column {
		return []column{
			col("sensor_id", func(v values, _ int) string { return strconv.Itoa(v.r.between(1, 12)) }),
			col("epoch_s", func(v values, row int) string { return strconv.Itoa(1767254400 + row*60) }),
			col("temp_c", func(v values, _ int) string { return v.number(float64(v.r.between(-1500, 4000))/100, 2) }),
			col("humidity_pct", func(v values, _ int) string { return v.number(float64(v.r.between(100, 1000))/10, 1) }),
			col("pressure_hpa", func(v values, _ int) string { return v.number(float64(v.r.between(95000, 105000))/100, 2) }),
			col("status", func(v values, _ int) string { return strconv.Itoa(v.r.intn(3)) }),
		}
	}}
	// numberedSensors has headers with digits in them ("Sensor 3").
	numberedSensors = schema{"numbered-sensors", true, false, func(v values) []column {
		cols := []column{col("Time", func(v values, row int) string { return v.timestamp(row) })}
		for i := 1; i <= 6; i++ {
			cols = append(cols, col(fmt.Sprintf("Sensor %d", i), func(v values, _ int) string {
				return v.number(float64(v.r.between(0, 99999))/1000, 3)
			}))
		}
		return cols
	}}
	bookings = schema{"bookings", true, false, func(v values) []column {
		return []column{
			col(v.localized("Booking date", "Buchungstag"), func(v values, row int) string { return v.date(row) }),
			col(v.localized("Value date", "Valuta"), func(v values, row int) string { return v.date(row + 1) }),
			col(v.localized("Description", "Buchungstext"), func(v values, _ int) string {
				return pick(v.r, []string{"Überweisung", "Lastschrift Strom", "Gehalt März", "Kartenzahlung Café", "Miete; Wohnung 3", "Zinsen 1,5 %"})
			}),
			col(v.localized("Amount", "Betrag"), func(v values, _ int) string {
				if v.r.chance(30) {
					return v.number(float64(v.r.between(10000, 450000))/100, 2)
				}
				return v.number(-float64(v.r.between(100, 200000))/100, 2)
			}),
			col(v.localized("Currency", "Währung"), func(v values, _ int) string { return "EUR" }),
		}
	}}
	// yearly is shaped like World Bank downloads: a column per year, some
	// values missing. wide makes it more than 50 columns.
	yearly = func(first, last int) schema {
		return schema{fmt.Sprintf("yearly-%d-%d", first, last), true, false, func(v values) []column {
			cols := []column{
				col("Country Name", func(v values, _ int) string { return v.city() }),
				col("Indicator", func(v values, _ int) string {
					return pick(v.r, []string{"GDP (current US$)", "Population, total", "CO2 emissions (kt)"})
				}),
			}
			for y := first; y <= last; y++ {
				cols = append(cols, col(strconv.Itoa(y), func(v values, _ int) string {
					if v.r.chance(10) {
						return ""
					}
					return v.number(float64(v.r.between(1, 90000000))/100, 2)
				}))
			}
			return cols
		}}
	}
	quarterly = schema{"quarterly", true, false, func(v values) []column {
		cols := []column{
			col("Region", func(v values, _ int) string { return pick(v.r, regions) }),
			col("Category", func(v values, _ int) string { return pick(v.r, categories) }),
		}
		for _, q := range []string{"Q1 2025", "Q2 2025", "Q3 2025", "Q4 2025", "FY 2025", "Q1 2026"} {
			cols = append(cols, col(q, func(v values, _ int) string { return strconv.Itoa(v.r.between(0, 90000)) }))
		}
		return cols
	}}
	metrics = func(n int) schema {
		return schema{fmt.Sprintf("metrics-%d", n), true, false, func(v values) []column {
			cols := []column{col("id", func(v values, row int) string { return strconv.Itoa(row + 1) })}
			for i := 1; i < n; i++ {
				decimals := i % 3
				cols = append(cols, col(fmt.Sprintf("m_%03d", i), func(v values, _ int) string {
					return v.number(float64(v.r.between(0, 1000000))/100, decimals)
				}))
			}
			return cols
		}}
	}
	catalog = schema{"catalog", true, false, func(v values) []column {
		return []column{
			col("SKU", func(v values, row int) string { return fmt.Sprintf("A-%04d", row+1) }),
			col(v.localized("Name", "Bezeichnung"), func(v values, _ int) string { return pick(v.r, products) }),
			col(v.localized("Category", "Kategorie"), func(v values, _ int) string { return pick(v.r, categories) }),
			col(v.localized("Price (net, EUR)", "Preis (netto; EUR)"), func(v values, _ int) string { return v.money(1, 900) }),
			col(v.localized("In stock", "Lager"), func(v values, _ int) string { return pick(v.r, booleans) }),
			col(v.localized("Weight kg", "Gewicht kg"), func(v values, _ int) string { return v.number(float64(v.r.between(1, 50000))/1000, 3) }),
		}
	}}
	events = schema{"events", true, false, func(v values) []column {
		return []column{
			col("timestamp", func(v values, row int) string { return v.timestamp(row) }),
			col("level", func(v values, _ int) string { return pick(v.r, levels) }),
			col("service", func(v values, _ int) string { return pick(v.r, services) }),
			col("message", func(v values, _ int) string { return pick(v.r, messages) }),
			col("duration_ms", func(v values, _ int) string { return strconv.Itoa(v.r.between(1, 5000)) }),
		}
	}}
	survey = schema{"survey", true, false, func(v values) []column {
		cols := []column{
			col("respondent", func(v values, row int) string { return strconv.Itoa(row + 1) }),
			col("age", func(v values, _ int) string { return strconv.Itoa(v.r.between(18, 90)) }),
		}
		for i := 1; i <= 12; i++ {
			cols = append(cols, col(fmt.Sprintf("q%d", i), func(v values, _ int) string { return strconv.Itoa(v.r.between(1, 5)) }))
		}
		return append(cols, col("comment", func(v values, _ int) string { return pick(v.r, notes) }))
	}}
	// tickets have long multi-paragraph bodies, so a quoted field spans
	// many lines and the sniff window likely ends inside one.
	tickets = schema{"tickets", true, true, func(v values) []column {
		return []column{
			col("ticket", func(v values, row int) string { return strconv.Itoa(7001 + row) }),
			col("opened", func(v values, row int) string { return v.timestamp(row * 40) }),
			col("subject", func(v values, _ int) string { return pick(v.r, messages) }),
			col("body", func(v values, _ int) string { return v.paragraphs() }),
			col("status", func(v values, _ int) string { return pick(v.r, []string{"open", "closed", "pending"}) }),
		}
	}}
	// leaderboard names its rank column "#", as sports and ranking exports
	// do: the header line starts like a comment.
	leaderboard = schema{"leaderboard", true, false, func(v values) []column {
		return []column{
			col("#", func(v values, row int) string { return strconv.Itoa(row + 1) }),
			col("Player", func(v values, _ int) string { return v.name() }),
			col("Club", func(v values, _ int) string { return v.city() }),
			col("Goals", func(v values, row int) string { return strconv.Itoa(40 - row%40) }),
			col("Rating", func(v values, _ int) string { return v.number(float64(v.r.between(50, 99))/10, 1) }),
		}
	}}
	// lateAccents is plain ASCII for its first 3000 rows, so only text past
	// the 64 KiB sniff window shows the encoding.
	lateAccents = schema{"late-accents", true, false, func(v values) []column {
		return []column{
			col("id", func(v values, row int) string { return strconv.Itoa(row + 1) }),
			col("name", func(v values, row int) string {
				if row < 3000 {
					return pick(v.r, []string{"Anna Smith", "Liam Brown", "Emma Jensen", "Noah Dubois"})
				}
				return v.name()
			}),
			col("amount", func(v values, _ int) string { return v.money(1, 999) }),
		}
	}}
	// Single-column tables.
	emails = schema{"emails", false, false, func(v values) []column {
		return []column{col("email", func(v values, row int) string { return fmt.Sprintf("person%d@example.org", row+1) })}
	}}
	names = schema{"names", false, false, func(v values) []column {
		return []column{col("full_name", func(v values, _ int) string { return v.name() })}
	}}
	ids = schema{"ids", true, false, func(v values) []column {
		return []column{col("id", func(v values, row int) string { return strconv.Itoa(500000 + row*7) })}
	}}
	amounts = schema{"amounts", true, false, func(v values) []column {
		return []column{col("amount", func(v values, _ int) string { return v.money(0, 5000) })}
	}}
)
