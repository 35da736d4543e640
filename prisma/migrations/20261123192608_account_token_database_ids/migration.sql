-- AlterTable
ALTER TABLE "AccountToken" ALTER COLUMN "id" SET DEFAULT routekit_id();
