-- Zones (issue 5): an accessory's saved zone set and its zones with their precomputed grid cells.

-- CreateTable
CREATE TABLE "zone_sets" (
    "accessory_id" UUID NOT NULL,
    "last_modified" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "zone_sets_pkey" PRIMARY KEY ("accessory_id")
);

-- CreateTable
CREATE TABLE "zones" (
    "accessory_id" UUID NOT NULL,
    "zone_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "color" TEXT NOT NULL,
    "vertices" JSONB NOT NULL,
    "cells" SMALLINT[] NOT NULL,

    CONSTRAINT "zones_pkey" PRIMARY KEY ("accessory_id","zone_id")
);

-- AddForeignKey
ALTER TABLE "zone_sets" ADD CONSTRAINT "zone_sets_accessory_id_fkey" FOREIGN KEY ("accessory_id") REFERENCES "accessories"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "zones" ADD CONSTRAINT "zones_accessory_id_fkey" FOREIGN KEY ("accessory_id") REFERENCES "zone_sets"("accessory_id") ON DELETE CASCADE ON UPDATE CASCADE;
