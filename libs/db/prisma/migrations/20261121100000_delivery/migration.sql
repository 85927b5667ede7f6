-- CreateTable
CREATE TABLE "webhook" (
    "project_id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "rotated_at" TIMESTAMP(3),

    CONSTRAINT "webhook_pkey" PRIMARY KEY ("project_id")
);

-- CreateTable
CREATE TABLE "delivery" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "project_id" TEXT,
    "run_id" TEXT,
    "job_id" TEXT,
    "event_id" TEXT NOT NULL,
    "event_key" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "channel" TEXT NOT NULL,
    "service" TEXT,
    "url" TEXT NOT NULL,
    "host" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "secret" TEXT,
    "test" BOOLEAN NOT NULL DEFAULT false,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "retries" INTEGER NOT NULL DEFAULT 0,
    "manual" BOOLEAN NOT NULL DEFAULT false,
    "next_at" TIMESTAMP(3),
    "lease_until" TIMESTAMP(3),
    "lease_owner" TEXT,
    "last_status" INTEGER,
    "last_error" TEXT,
    "delivered_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "delivery_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "delivery_attempt" (
    "delivery_id" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "duration_ms" INTEGER NOT NULL,
    "http_status" INTEGER,
    "error" TEXT,
    "outcome" TEXT NOT NULL,
    "manual" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "delivery_attempt_pkey" PRIMARY KEY ("delivery_id","number")
);

-- CreateTable
CREATE TABLE "connection" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "config" JSONB NOT NULL DEFAULT '{}',
    "secrets" TEXT NOT NULL,
    "last_test_at" TIMESTAMP(3),
    "last_test_ok" BOOLEAN,
    "last_test_error" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "connection_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "token_usage" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "connection_id" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "project_id" TEXT,
    "run_id" TEXT,
    "model" TEXT NOT NULL,
    "prompt_tokens" INTEGER NOT NULL,
    "completion_tokens" INTEGER NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "token_usage_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "notification" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "event_key" TEXT NOT NULL,
    "project_id" TEXT,
    "run_id" TEXT,
    "title" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "data" JSONB NOT NULL DEFAULT '{}',
    "seen_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "notification_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "webhook_workspace_id_idx" ON "webhook"("workspace_id");

-- CreateIndex
CREATE INDEX "delivery_status_next_at_idx" ON "delivery"("status", "next_at");

-- CreateIndex
CREATE INDEX "delivery_workspace_id_id_idx" ON "delivery"("workspace_id", "id");

-- CreateIndex
CREATE INDEX "delivery_workspace_id_project_id_id_idx" ON "delivery"("workspace_id", "project_id", "id");

-- CreateIndex
CREATE INDEX "delivery_workspace_id_run_id_id_idx" ON "delivery"("workspace_id", "run_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "delivery_event_key_channel_url_key" ON "delivery"("event_key", "channel", "url");

-- CreateIndex
CREATE INDEX "connection_workspace_id_id_idx" ON "connection"("workspace_id", "id");

-- CreateIndex
CREATE INDEX "token_usage_workspace_id_created_at_idx" ON "token_usage"("workspace_id", "created_at");

-- CreateIndex
CREATE INDEX "notification_workspace_id_user_id_seen_at_id_idx" ON "notification"("workspace_id", "user_id", "seen_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "notification_event_key_user_id_key" ON "notification"("event_key", "user_id");

-- AddForeignKey
ALTER TABLE "delivery_attempt" ADD CONSTRAINT "delivery_attempt_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "delivery"("id") ON DELETE CASCADE ON UPDATE CASCADE;

