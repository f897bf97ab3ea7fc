package testollama

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carrel-app/carrel/internal/gguf"
)

// MeaningEmbedModel is an embedding model whose vectors mean something, made on demand
// by [Server.CreateMeaningModel]: the mean of its tokens' embeddings over a vocabulary of
// about 500 common English and study words (gguf.Options.MeanPool). Texts sharing words
// are near, texts sharing none are not; word order and synonyms mean nothing to it.
const MeaningEmbedModel = "tiny-meaning"

// meaningWords is the vocabulary: common English words and words of study questions in
// general (not drawn from any test's data). Words outside it are spelt in letters.
var meaningWords = strings.Fields(`
the of and to in is a an on at by for with about as from into over under up down out
what why how when where who which whose whom that this these those there here it its
they them their he him his she her we our you your i me my not no never only also
do does did done be been being was were are am has have had can could should would will
may might must shall make made use used using give gave find found get got see seen
say said tell told know known think thought mean means meant explain describe define
first second third last next before after more less most least than then because so
if but or nor all any each every both some many much few other another same different
new old long short big small large great good bad high low early late main key basic
time year day page pages book chapter section part paper study note notes text model
answer question source author reader word words name number numbers list table figure
file files format document documents data value values type types kind example examples
work works worked working live lived life world people person man woman child house
water fire earth air food eat ate eating plant planted grow grew bean beans pond wood woods
city country capital state nation war peace law rule rules right left power money price
cost market trade work labor labour school class course student teacher learn learned
test exam problem problems solution method methods theory result results effect effects
cause causes reason reasons purpose role function functions structure process system
systems change changes difference between compare contrast similar order level levels
language languages program programs programming code function variable variables loop
loops string strings array arrays slice slices map maps pointer pointers interface
interfaces struct structs channel channels goroutine goroutines thread threads memory
garbage collection compiler compile error errors exception exceptions package packages
import export defer select statement statements constant constants zero default empty
pdf pdfs object objects stream streams dictionary dictionaries catalog trailer xref cross
reference references font fonts image images annotation annotations encrypt encrypted
encryption filter filters compress compression page tree trees content contents linear
incremental update updates version versions standard specification spec header footer
network networks neural attention transformer transformers layer layers training train
paper papers conclude conclusion conclusions claim claims evidence experiment experiments
author authors wrote write writing written publish published publication review reviewed
history historical century period modern ancient philosophy science scientific nature
natural human humans society social economy economic political government freedom solitude
france spain germany italy england china japan india america europe paris madrid london
boil boiling point temperature heat energy light sound speed force mass weight size
safe unsafe safety risk drug drugs health disease body blood heart brain cell cells
advantage advantages disadvantage disadvantages benefit benefits limit limits rate rates
time space complexity sort sorting search searching quick quicksort algorithm algorithms
float int integer integers convert conversion implicit implicitly explicit bytes byte rune
runes encode encoded encoding decode utf unicode ascii character characters
`)

var created sync.Map // server host and model name → *createResult

type createResult struct {
	once sync.Once
	err  error
}

// createOnce creates name on s once per server and name (later calls return the first
// call's result), from the Modelfile that modelfile writes out and returns.
func (s *Server) createOnce(ctx context.Context, name string, modelfile func() (string, error)) error {
	v, _ := created.LoadOrStore(s.Host+" "+name, &createResult{})
	r := v.(*createResult)
	r.once.Do(func() {
		bin, err := Binary()
		if err != nil {
			r.err = err
			return
		}
		mf, err := modelfile()
		if err != nil {
			r.err = err
			return
		}
		r.err = create(ctx, bin, s, s.dir, name, mf)
	})
	return r.err
}

// CreateMeaningModel creates [MeaningEmbedModel] on s (once per server) and returns its
// name.
func (s *Server) CreateMeaningModel(ctx context.Context) (string, error) {
	return MeaningEmbedModel, s.CreateModel(ctx, MeaningEmbedModel, gguf.Options{Seed: 7, Words: meaningWords, MeanPool: true})
}

// CreateModel writes the model opts describe and creates it on s as name, once per server
// and name (later calls return the first call's result).
func (s *Server) CreateModel(ctx context.Context, name string, opts gguf.Options) error {
	return s.createOnce(ctx, name, func() (string, error) {
		f, err := os.Create(filepath.Join(s.dir, name+".gguf"))
		if err != nil {
			return "", fmt.Errorf("write model: %w", err)
		}
		err = gguf.Write(f, opts)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return "", fmt.Errorf("write model %s: %w", name, err)
		}
		return "FROM ./" + name + ".gguf\nPARAMETER num_thread 1\n", nil
	})
}

// MeaningModel creates [MeaningEmbedModel] on the shared test server and returns its
// name; it fails tb if it cannot.
func MeaningModel(tb testing.TB, s *Server) string {
	tb.Helper()
	return mustCreate(tb, 2*time.Minute, MeaningEmbedModel, s.CreateMeaningModel)
}
