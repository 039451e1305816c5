#include "app/desktopapp.h"

#include <QApplication>

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    return ddl::desktop::DesktopApp::run(app);
}
