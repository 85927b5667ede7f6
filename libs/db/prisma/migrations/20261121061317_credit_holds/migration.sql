-- CreateTable
CREATE TABLE "credit_hold" (
    "workspace_id" TEXT NOT NULL,
    "reference" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "credits" INTEGER NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "credit_hold_pkey" PRIMARY KEY ("workspace_id","reference")
);

-- CreateIndex
CREATE INDEX "credit_hold_workspace_id_expires_at_idx" ON "credit_hold"("workspace_id", "expires_at");
