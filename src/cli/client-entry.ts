// The client package's executable: run the command line it was given.
import { main } from './client-main.ts';

await main(process.argv.slice(2));
