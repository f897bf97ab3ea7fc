// Vite empties dist/ on every build; Go embeds frontend/dist, and the repository keeps
// dist/.gitkeep so that `go build` works before the first frontend build.
import { writeFileSync } from 'node:fs';
writeFileSync(new URL('../dist/.gitkeep', import.meta.url), '');
