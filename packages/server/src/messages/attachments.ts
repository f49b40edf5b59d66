// The files of a customer message: their type read from their bytes (spec, Accepted files), then stored under an
// unguessable URL. Files are written before the message's transaction (never I/O inside one).
import type { StoredAttachment } from '../db/schema.ts';
import { Errors } from '../errors.ts';
import { detectUpload, safeFileName } from '../files/file-kinds.ts';
import { fileUrl, type FileStorage, type Upload } from '../files/file-storage.ts';

/** Where attachments go and how they are linked (an unguessable URL under PUBLIC_URL). */
export interface AttachmentStore {
  storage: Pick<FileStorage, 'put' | 'putFile'>;
  publicUrl: string;
}

export type DetectedUpload = Awaited<ReturnType<typeof detectAll>>[number];

/** The type of each file from its bytes; one unaccepted file rejects the message. */
export async function detectAll(uploads: readonly Upload[]) {
  const detected = await Promise.all(uploads.map(async (upload) => ({ upload, file: await detectUpload(upload) })));
  return detected.map(({ upload, file }) => {
    if (!file) throw Errors.fileTypeNotAccepted(upload.name);
    return { upload, file };
  });
}

export async function storeAttachments(files: AttachmentStore, detected: readonly DetectedUpload[]): Promise<StoredAttachment[]> {
  return Promise.all(
    detected.map(async ({ upload, file }) => {
      const name = safeFileName(upload.name, file.extension);
      const meta = { contentType: file.contentType, name };
      const stored = 'bytes' in upload ? await files.storage.put(upload.bytes, meta) : await files.storage.putFile(upload.path, meta);
      // Audio is a voice message for the agent; images it considers; other files it does not process.
      return { contentType: file.contentType, url: fileUrl(files.publicUrl, stored), fileSize: stored.size, name, kind: file.kind };
    }),
  );
}
