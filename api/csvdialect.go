package api

import (
	"strings"

	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/readers"
	"github.com/gin-gonic/gin"
)

// A CSV dialect in requests: the query parameters delimiter, quote, header
// and encoding of an upload or a prescan. It is the file's, where null
// tokens are the job's: one job may hold files from different exports.

// csvDialectFromQuery reads the query's CSV dialect: the words to store
// with the file (nil when everything is sniffed) and the options they
// give the reader. A word the parser does not take is a 400 with its
// sentence, before anything is read or stored.
func csvDialectFromQuery(c *gin.Context) (*models.CSVDialect, *readers.CSVOptions, error) {
	if strings.Contains(c.Request.URL.RawQuery, ";") {
		// Go drops a query pair holding a raw ';' (golang.org/issue/25192):
		// ?delimiter=; would be sniffed without a word said.
		return nil, nil, errs.BadRequest("the query holds a raw \";\", which is not read as part of a value: write it %%3B (a semicolon delimiter may also be given as delimiter=semicolon)")
	}
	words := models.NewCSVDialect(c.Query("delimiter"), c.Query("quote"), c.Query("header"), c.Query("encoding"))
	opt, err := readers.ParseCSVOptions(words.Delimiter, words.Quote, words.Header, words.Encoding)
	if err != nil {
		return nil, nil, errs.BadRequest("%s", err.Error())
	}
	if opt == nil {
		// Every word empty or auto: the file is sniffed, as without them.
		return nil, nil, nil
	}
	return &words, opt, nil
}

// uploadDialect is how an upload's files are read: with the given null
// tokens and the query's CSV dialect, whose words are returned to be
// stored with each file.
func uploadDialect(c *gin.Context, nullTokens []string) (analysis.Dialect, *models.CSVDialect, error) {
	words, opt, err := csvDialectFromQuery(c)
	if err != nil {
		return analysis.Dialect{}, nil, err
	}
	d, err := dialectOf(nullTokens)
	if err != nil {
		return analysis.Dialect{}, nil, err
	}
	d.CSV = opt
	return d, words, nil
}
