import { sql } from 'kysely';
import type { Migration } from './helpers.ts';

type AnyDb = Parameters<Migration['up']>[0]['db'];

/**
 * A counter per project that moves only when the project's webhooks change: any insert, update or
 * delete of a `webhooks` row, whatever made it (the API, `bin/quire webhook`, another instance, an
 * operator's edit). The outbox on SQLite keeps each project's live webhooks under it
 * (src/modules/webhooks/webhooks.events.ts), so a write that touches no webhook, in this process or
 * another, keeps them. A project without a row has had no webhook written since: its stamp is 0.
 *
 * Made as 0010's change stamps are: per row on SQLite; on PostgreSQL a constraint trigger deferred to
 * the commit that bumps each project's row at most once per transaction. Everything is made so that
 * the migration can run again over what it made.
 */
export const webhookStamps: Migration = {
  name: '0018-webhook-stamps',
  async up({ db, dialect }) {
    await db.schema
      .createTable('webhook_stamps')
      .ifNotExists()
      .addColumn('project_id', 'integer', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
      .addColumn('stamp', 'bigint', (c) => c.notNull())
      .execute();
    if (dialect === 'sqlite') await sqliteTriggers(db);
    else await postgresTriggers(db);
  },
};

/**
 * SQLite: a trigger per row and event. The project is looked up, so that a row whose project is gone
 * bumps nothing (the counter row would name a missing project); an update that moved a webhook to
 * another project bumps both.
 */
async function sqliteTriggers(db: AnyDb): Promise<void> {
  const bump = (projects: string) =>
    sql.raw(`insert into webhook_stamps (project_id, stamp)
      select p.id, 1 from projects p where p.id in (${projects})
      on conflict (project_id) do update set stamp = stamp + 1;`);
  const triggers: Array<[string, ReturnType<typeof sql.raw>]> = [
    ['webhooks_insert_stamp after insert on webhooks', bump('new.project_id')],
    ['webhooks_update_stamp after update on webhooks', bump('old.project_id, new.project_id')],
    ['webhooks_delete_stamp after delete on webhooks', bump('old.project_id')],
  ];
  for (const [head, body] of triggers) {
    await sql`create trigger if not exists ${sql.raw(head)} begin ${body} end`.execute(db);
  }
}

/**
 * PostgreSQL: nothing reads the counter there yet (the outbox finds the webhooks in the statement that
 * writes the deliveries), but it is kept alike on both databases, at the cost of one deferred trigger
 * run per webhook written.
 */
async function postgresTriggers(db: AnyDb): Promise<void> {
  await sql`
    create or replace function webhook_stamps_bump(pid integer) returns void language plpgsql as $$
    begin
      if pid is null or current_setting('quire.webhook_stamped_' || pid, true) = '1' then
        return;
      end if;
      insert into webhook_stamps (project_id, stamp)
        select p.id, 1 from projects p where p.id = pid
        on conflict (project_id) do update set stamp = webhook_stamps.stamp + 1;
      perform set_config('quire.webhook_stamped_' || pid, '1', true);
    end
    $$`.execute(db);
  await sql`
    create or replace function webhook_stamps_webhooks() returns trigger language plpgsql as $$
    begin
      if tg_op <> 'INSERT' then perform webhook_stamps_bump(old.project_id); end if;
      if tg_op <> 'DELETE' then perform webhook_stamps_bump(new.project_id); end if;
      return null;
    end
    $$`.execute(db);
  // Constraint triggers have no "or replace": made again, it is dropped first.
  await sql`drop trigger if exists webhooks_webhook_stamp on webhooks`.execute(db);
  await sql`
    create constraint trigger webhooks_webhook_stamp after insert or update or delete on webhooks
    deferrable initially deferred for each row execute function webhook_stamps_webhooks()`.execute(db);
}
