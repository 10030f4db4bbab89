import { TransactionCanceledException } from "@aws-sdk/client-dynamodb";
import { conflict } from "@tp/core/errors";
import type { ImportTask, ImportTaskStore } from "@tp/core/imports/index";
import type { Db } from "../dynamo/db";
import { Keys } from "../dynamo/keys";
import { Repository } from "../dynamo/repository";
import { transact, transactIfUnchanged } from "../dynamo/transactions";

interface ImportLock {
  symbol: string;
  task_id: string;
  created_at: string;
}

/** Import tasks with a per-symbol lock item: taken in the creating transaction, released in the finishing one. */
export class DynamoImportTaskStore implements ImportTaskStore {
  private readonly tasks: Repository<ImportTask>;
  private readonly locks: Repository<ImportLock>;

  constructor(private readonly db: Db) {
    this.tasks = new Repository<ImportTask>(db, { type: "ImportTask", key: (task) => Keys.importTask(task.task_id) });
    this.locks = new Repository<ImportLock>(db, { type: "ImportLock", key: (lock) => Keys.importLock(lock.symbol) });
  }

  async create(task: ImportTask): Promise<void> {
    const running = async () => {
      const lock = await this.locks.get(Keys.importLock(task.symbol));
      return conflict("IMPORT_ALREADY_RUNNING", `An import of ${task.symbol} is already running: task ${lock?.task_id ?? "unknown"}`, {
        running_task_id: lock?.task_id,
      });
    };
    try {
      await transact(this.db, [
        { put: this.tasks.toItem(task), ifAbsent: true },
        { put: this.locks.toItem({ symbol: task.symbol, task_id: task.task_id, created_at: task.created_at }), ifAbsent: true },
      ]);
    } catch (error) {
      if (error instanceof TransactionCanceledException) throw await running();
      throw error;
    }
  }

  get(taskId: string) {
    return this.tasks.get(Keys.importTask(taskId));
  }

  async save(task: ImportTask): Promise<boolean> {
    try {
      await this.tasks.replaceIf(task, "version", task.version - 1, () => conflict("STALE", "stale"));
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === "STALE") return false;
      throw error;
    }
  }

  finish(task: ImportTask): Promise<boolean> {
    return transactIfUnchanged(this.db, [
      { put: this.tasks.toItem(task), ifVersion: task.version - 1 },
      // Only this task's lock: never release a lock a later task took.
      { delete: Keys.importLock(task.symbol), ifOwnedBy: { attribute: "task_id", value: task.task_id }, allowAbsent: true },
    ]);
  }
}
