// Knowledge bases: the account's list, and a new base (admins); each base opens its own page (base-page.tsx).
import { useEffect, useState } from 'preact/hooks';
import type { KnowledgeBase } from '@parley/contracts';
import { api, errorText } from '../../api.ts';
import { t } from '../../i18n.ts';
import { plural } from '../../plural.ts';
import { AdminOnlyNote, useCanManage } from '../../role.tsx';
import { navigate } from '../../router.ts';
import { ErrorLine, Link } from '../../ui.tsx';

export function KnowledgeBasesPage() {
  const [bases, setBases] = useState<KnowledgeBase[]>([]);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const canManage = useCanManage();

  const load = () => api<{ knowledgeBases: KnowledgeBase[] }>('GET', '/knowledge-bases').then((r) => setBases(r.knowledgeBases), (e) => setError(errorText(e)));
  useEffect(() => void load(), []);

  const create = async (event: Event) => {
    event.preventDefault();
    try {
      const base = await api<KnowledgeBase>('POST', '/knowledge-bases', { body: { name } });
      navigate(`/knowledge-bases/${base.id}`);
    } catch (failure) {
      setError(errorText(failure));
    }
  };

  return (
    <section>
      <h1>{t('Knowledge bases')}</h1>
      {canManage ? (
        <form class="card row" aria-label="Create knowledge base" onSubmit={create}>
          <input aria-label="Knowledge base name" placeholder={t('Name')} required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <button type="submit" aria-label="Create">
            {t('Create')}
          </button>
        </form>
      ) : (
        <AdminOnlyNote text="Your role (agent) reads knowledge bases; an admin or the owner creates and edits them. Corrections from the Inbox still reach them." />
      )}
      <ErrorLine error={error} />
      <table class="list">
        <tbody>
          {bases.map((base) => (
            <tr key={base.id}>
              <td>
                <Link href={`/knowledge-bases/${base.id}`}>{base.name}</Link>
              </td>
              <td>{base.language}</td>
              <td>
                {plural(base.entryCount, 'entry', 'entries')}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
