// Reads `.env` from the project root when there is one (variables already set in the
// environment win), for `npm start` and the CLI tools. The built app (`npm run start:prod`, the
// container) reads only its real environment.
const fs = require('node:fs');
const path = require('node:path');

const file = path.resolve(__dirname, '..', '.env');
if (fs.existsSync(file)) process.loadEnvFile(file);
