package intake

import (
	"context"

	"github.com/carrel-app/carrel/backend/library"
)

// Rechunk cuts the library's ready documents again with the chunk sizes now in force
// (DIR/chunking.json over the defaults), from their stored page texts: no file is read
// again, so it works for documents whose files have moved. Answers cached from their old
// passages are forgotten. Their new passages have no vectors yet: call EmbedPending. It
// returns the documents re-chunked.
func (in *Intake) Rechunk(ctx context.Context) ([]string, error) {
	docs, err := in.lib.Documents(ctx)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, d := range docs {
		if d.Status == library.StatusReady {
			ids = append(ids, d.ID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	if _, err := in.rechunk(ctx, ids); err != nil {
		return nil, err
	}
	for _, id := range ids {
		in.co.Changed(ctx, id)
	}
	return ids, nil
}
