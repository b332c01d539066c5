package analysis

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/dqs/dqs/profile"
	"github.com/dqs/dqs/quality"
)

func csvFile(rows int) *bytes.Reader {
	var b strings.Builder
	b.WriteString("customer_id,email,full_name,country,amount\n")
	names := []string{"Anna Svensson", "Mikko Virtanen", "Ola Nordmann", "John Smith", "Marie Dubois"}
	for i := 0; i < rows; i++ {
		email := fmt.Sprintf("person%d@example.org", i)
		if i%20 == 0 {
			email = "" // 5% missing
		}
		fmt.Fprintf(&b, "%d,%s,%s,%s,%d.%02d\n", 1000+i, email, names[i%len(names)], []string{"SE", "FI", "NO"}[i%3], i%500, i%100)
	}
	return bytes.NewReader([]byte(b.String()))
}

func TestRunClassifiesScoresAndMasks(t *testing.T) {
	f := csvFile(1000)
	var stages []string
	res, err := Run(context.Background(), f, "customers.csv", f.Size(), Dialect{}, Limits{}, func(stage string, frac float64) {
		if frac < 0 || frac > 1 {
			t.Errorf("progress fraction %v out of range", frac)
		}
		if len(stages) == 0 || stages[len(stages)-1] != stage {
			stages = append(stages, stage)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != "csv" || res.RowCount != 1000 || len(res.Columns) != 5 {
		t.Fatalf("result = %+v", res)
	}
	want := map[string]string{"email": "email", "full_name": "person_name"}
	for _, c := range res.Columns {
		if w, ok := want[c.Name]; ok && c.Classification.Label != w {
			t.Errorf("%s classified %s, want %s", c.Name, c.Classification.Label, w)
		}
		if c.Sample != nil {
			t.Errorf("%s: the sample left the engine", c.Name)
		}
	}
	if res.Quality.Score <= 0 || res.Quality.Score > 100 || res.Quality.Dimensions.Completeness >= 100 {
		t.Errorf("quality = %+v", res.Quality)
	}
	if strings.Join(stages, ",") != "parsing,classifying,scoring" && !strings.HasPrefix(strings.Join(stages, ","), "parsing") {
		t.Errorf("stages = %v", stages)
	}
	raw, _ := json.Marshal(res)
	if strings.Contains(string(raw), "@example.org") || strings.Contains(string(raw), "Svensson") {
		t.Errorf("raw personal values in the result: %.300s", raw)
	}
}

func TestRunRejectsBadInputAsBadInput(t *testing.T) {
	for name, body := range map[string]string{
		"broken.json":   `[{"a": 1}, {"a": `,
		"notarray.json": `[1, 2, 3]`,
		"bad.parquet":   "PAR1 this is not parquet PAR1",
	} {
		f := bytes.NewReader([]byte(body))
		_, err := Run(context.Background(), f, name, f.Size(), Dialect{}, Limits{}, nil)
		if !errors.Is(err, ErrBadInput) {
			t.Errorf("%s: err = %v, want ErrBadInput", name, err)
		}
	}
}

func TestRunHonoursCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := csvFile(200_000)
	if _, err := Run(ctx, f, "big.csv", f.Size(), Dialect{}, Limits{}, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestPrescanFindsPasswordsAndEstimatesRows(t *testing.T) {
	var b strings.Builder
	b.WriteString("login,password,email\n")
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, "user%d,Winter%d!secret,u%d@example.com\n", i, i, i)
	}
	f := bytes.NewReader([]byte(b.String()))
	res, err := Prescan(context.Background(), f, "users.csv", f.Size(), Dialect{}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.PasswordColumns) != 1 || res.PasswordColumns[0] != "password" || !res.ContainsPersonalData {
		t.Fatalf("prescan = %+v", res)
	}
	if res.RowsScanned != PrescanRows || res.RowEstimate < 4500 || res.RowEstimate > 5500 {
		t.Fatalf("rows scanned %d, estimate %d, want about 5000", res.RowsScanned, res.RowEstimate)
	}
	clean := csvFile(100)
	res, err = Prescan(context.Background(), clean, "c.csv", clean.Size(), Dialect{}, Limits{})
	if err != nil || len(res.PasswordColumns) != 0 || res.RowEstimate != 100 {
		t.Fatalf("clean prescan = %+v, %v", res, err)
	}
}

// A file without rows fails with a message that says so, rather than
// scoring a perfect 100 for nothing.
func TestEmptyFilesFail(t *testing.T) {
	for name, c := range map[string]struct {
		data string
		want string
	}{
		"empty.csv":    {"", "the file is empty: it holds no columns and no rows"},
		"header.csv":   {"id,name,email\n", "the file holds no rows, only the names of its 3 columns"},
		"empty.json":   {"[]", "the file is empty"},
		"blank.jsonl":  {"\n\n", "the file is empty"},
		"nothing.json": {"[{}, {}]", "the file holds no columns"},
	} {
		_, err := Run(context.Background(), strings.NewReader(c.data), name, int64(len(c.data)), Dialect{}, Limits{}, nil)
		if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want bad input containing %q", name, err, c.want)
		}
	}
}

// Issue examples are what a user needs to find the bad values: in clear,
// except in personal columns, where they are masked like the top values.
func TestIssueExamplesAreMaskedOnlyInPersonalColumns(t *testing.T) {
	var b strings.Builder
	b.WriteString("email,status\n")
	for i := range 400 {
		email, status := fmt.Sprintf("user%d@example.org", i%40), "active"
		if i%7 == 0 { // 7 is prime to 40: each address in both spellings
			email, status = strings.ToUpper(email), "ACTIVE"
		}
		fmt.Fprintf(&b, "%s,%s\n", email, status)
	}
	f := bytes.NewReader([]byte(b.String()))
	res, err := Run(context.Background(), f, "people.csv", f.Size(), Dialect{}, Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	examples := map[string][]string{}
	for _, is := range res.Quality.Issues {
		if is.Kind == quality.KindInconsistentCase {
			examples[is.Column] = is.Examples
		}
	}
	if got := examples["status"]; !reflect.DeepEqual(got, []string{"ACTIVE"}) {
		t.Errorf("status examples = %q, want the value in clear", got)
	}
	got := examples["email"]
	if len(got) == 0 {
		t.Fatalf("no inconsistent_case issue on email: %+v", res.Quality.Issues)
	}
	for _, e := range got {
		if strings.Trim(e[:len(e)-2], "*") != "" || strings.Contains(strings.ToLower(e), "example") {
			t.Errorf("email example %q is not masked", e)
		}
	}
}

// Null tokens count as nulls in every figure, by default and as a dialect
// says.
func TestNullTokensAreNulls(t *testing.T) {
	var b strings.Builder
	b.WriteString("email,amount\n")
	for i := range 200 {
		email, amount := fmt.Sprintf("user%d@example.org", i), fmt.Sprintf("%d.50", i)
		switch i % 10 {
		case 0:
			email, amount = "NULL", " n/a "
		case 1:
			email, amount = "missing", "-"
		}
		fmt.Fprintf(&b, "%s,%s\n", email, amount)
	}
	data := []byte(b.String())
	for _, tc := range []struct {
		name                   string
		tokens                 *profile.NullTokens
		emailNulls, amountNull int64
		amountType             string
	}{
		{"defaults", nil, 20, 40, profile.TypeFloat},
		{"none", profile.MustNullTokens([]string{}), 0, 0, profile.TypeString},
		{"the user's", profile.MustNullTokens([]string{"MISSING", "n/a"}), 20, 20, profile.TypeString},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Run(context.Background(), bytes.NewReader(data), "t.csv", int64(len(data)), Dialect{NullTokens: tc.tokens}, Limits{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			email, amount := res.Columns[0], res.Columns[1]
			if email.Nulls != tc.emailNulls || amount.Nulls != tc.amountNull {
				t.Errorf("nulls: email %d, amount %d; want %d, %d", email.Nulls, amount.Nulls, tc.emailNulls, tc.amountNull)
			}
			if amount.InferredType != tc.amountType {
				t.Errorf("amount is %s, want %s", amount.InferredType, tc.amountType)
			}
			if email.Classification.Label != "email" {
				t.Errorf("email classified %+v", email.Classification)
			}
			for _, tv := range email.TopValues {
				if tv.Value == "NULL" && tc.emailNulls == 20 {
					t.Errorf("a null token among the top values: %+v", email.TopValues)
				}
			}
			wantCompleteness := 100 * (1 - float64(tc.emailNulls)/200)
			if got := res.Quality.Columns[0].Dimensions.Completeness; got != wantCompleteness {
				t.Errorf("email completeness %v, want %v", got, wantCompleteness)
			}
		})
	}
}

// Outliers in a file shaped like an HR export: flagged in measures, exactly,
// not in years, postal codes, order numbers, epochs or phone numbers read as
// integers, whose far values are just other labels.
func TestOutliersOnlyInMeasures(t *testing.T) {
	var b strings.Builder
	b.WriteString("work_year,zip,order_number,created_epoch,phone,salary_usd,age\n")
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range 5000 {
		fmt.Fprintf(&b, "%d,%d,%d,%d,%d,%d,%d\n", []int{2020, 2021, 2022, 2022}[i%4], 98101+rng.IntN(99),
			1_000_000+rng.IntN(9_000_000), 1_600_000_000+rng.IntN(100_000_000), 2_000_000_000+rng.Int64N(8_000_000_000),
			60_000+rng.IntN(40_000), 18+rng.IntN(52))
	}
	b.WriteString("2022,98101,1234567,1650000000,5551234567,9000000,250\n")
	data := []byte(b.String())
	res, err := Run(context.Background(), bytes.NewReader(data), "hr.csv", int64(len(data)), Dialect{}, Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]quality.Issue{}
	for _, is := range res.Quality.Issues {
		if is.Kind == quality.KindOutliers {
			got[is.Column] = is
		}
	}
	if is := got["salary_usd"]; is.Count != 1 || is.Estimated || !reflect.DeepEqual(is.Examples, []string{"9000000"}) {
		t.Errorf("salary outliers %+v, want the one 9000000, counted", is)
	}
	if is := got["age"]; is.Count != 1 || is.Estimated || !reflect.DeepEqual(is.Examples, []string{"*50"}) {
		t.Errorf("age outliers %+v, want the one 250, masked", is)
	}
	if len(got) != 2 {
		t.Errorf("outliers on %v, want salary_usd and age only", got)
	}
}
