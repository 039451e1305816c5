#pragma once

#include "front/router.h"

namespace ddl::server {

class DatasetService;

// /v1/datasets (named dataset manifests of a user) and /v1/blobs/missing (which blobs a client
// still has to send).
class DatasetController
{
public:
    explicit DatasetController(DatasetService &datasets)
        : m_datasets(datasets)
    {}
    void registerRoutes(Router &router);

private:
    DatasetService &m_datasets;
};

} // namespace ddl::server
