#include "cliapplication.h"

int main(int argc, char **argv)
{
    return ddl::cli::runMain(argc, argv);
}
