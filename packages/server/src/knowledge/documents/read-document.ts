// What the parser's worker thread runs: a file's bytes, claimed to be `kind`, to its passages.
import type { DocumentKind } from '@parley/contracts';
import { documentBlocks } from './document-text.ts';
import { splitPassages, type Passage } from './passages.ts';

export async function readDocument(bytes: Uint8Array, kind: DocumentKind): Promise<Passage[]> {
  return splitPassages(await documentBlocks(bytes, kind));
}
