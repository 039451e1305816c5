#pragma once

#include "front/router.h"

namespace ddl::server {

class CheckpointService;

// POST /v1/workers/tasks/{id}/checkpoint: a worker records its task's latest checkpoint
// (docs/checkpoints.md). Users read checkpoints in the job's detail (GET /v1/jobs/{uuid}).
class CheckpointController
{
public:
    explicit CheckpointController(CheckpointService &checkpoints)
        : m_checkpoints(checkpoints)
    {
    }
    void registerRoutes(Router &router);

private:
    CheckpointService &m_checkpoints;
};

} // namespace ddl::server
