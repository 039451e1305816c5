#include "workspacebuilder.h"

#include "editor/jobeditor.h"
#include "editor/jobtemplates.h"
#include "jobspec/jobspecparser.h"
#include "core/session.h"
#include "views/datasetsview.h"
#include "views/homeview.h"
#include "views/imagesview.h"
#include "views/joblistview.h"
#include "views/mainwindow.h"
#include "views/workersview.h"

#include <QJsonDocument>
#include <QPlainTextEdit>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

void WorkspaceBuilder::build(MainWindow &window)
{
    window.setWorkspaceBuilder(&WorkspaceBuilder::addTabs);
}

void WorkspaceBuilder::addTabs(MainWindow &window)
{
    // Home comes first, as in OpenPAI's portal; the job list stays the page in front.
    auto *home = new HomeView(window.workspace());
    home->setObjectName(u"homeView"_s);
    window.workspace()->insertTab(0, home, HomeView::tr("Home"));
    window.workspace()->tabBar()->setTabButton(0, QTabBar::RightSide, nullptr);
    QObject::connect(window.session(), &Session::loggedIn, home,
                     [&window, home] { home->setClient(window.session()->client()); });
    if (window.isLoggedIn())
        home->setClient(window.session()->client());
    QObject::connect(home, &HomeView::openRequested, &window,
                     [&window](const QString &uuid) { window.openJob(uuid); });
    QObject::connect(home, &HomeView::stateRequested, &window, [&window](const QString &state) {
        window.jobListView()->showOnlyState(state);
        window.workspace()->setCurrentWidget(window.jobListView());
    });

    // On a rebuild (a new language) the editor's text and cursor carry over.
    auto *editor = new JobEditor(window.workspace());
    editor->setObjectName(u"jobEditor"_s);
    if (auto *old = qobject_cast<JobEditor *>(window.retiredView(editor->objectName()))) {
        editor->setText(old->text());
        QTextCursor cursor = editor->textEdit()->textCursor();
        cursor.setPosition(std::min(old->textEdit()->textCursor().position(),
                                    editor->textEdit()->document()->characterCount() - 1));
        editor->textEdit()->setTextCursor(cursor);
    }
    window.addWorkspaceTab(editor, JobEditor::tr("Editor"));

    auto *workers = new WorkersView(window.workspace());
    workers->setObjectName(u"workersView"_s);
    window.addWorkspaceTab(workers, WorkersView::tr("Workers"));
    QObject::connect(window.session(), &Session::loggedIn, workers,
                     [&window, workers] { workers->setClient(window.session()->client()); });
    if (window.isLoggedIn())
        workers->setClient(window.session()->client());

    // The datasets screen may be uploading: it stays as it is and retranslates itself.
    auto *datasets = qobject_cast<DatasetsView *>(window.retiredView(u"datasetsView"_s));
    if (!datasets) {
        datasets = new DatasetsView(window.workspace());
        datasets->setObjectName(u"datasetsView"_s);
        QObject::connect(window.session(), &Session::loggedIn, datasets, [&window, datasets] {
            datasets->setClient(window.session()->client());
        });
    }
    window.addWorkspaceTab(datasets, DatasetsView::tr("Datasets"));

    // Likewise the images screen, which may be pushing.
    auto *images = qobject_cast<ImagesView *>(window.retiredView(u"imagesView"_s));
    if (!images) {
        images = new ImagesView(window.workspace());
        images->setObjectName(u"imagesView"_s);
        QObject::connect(window.session(), &Session::loggedIn, images, [&window, images] {
            images->setClient(window.session()->client());
        });
        if (window.isLoggedIn())
            images->setClient(window.session()->client());
    }
    window.addWorkspaceTab(images, ImagesView::tr("Images"));

    // Connections live as long as the editor: a rebuilt editor makes its own.
    QObject::connect(editor, &JobEditor::submitRequested, &window,
                     [&window](const JobSpec &spec) { window.openSubmitWizard(spec); });
    QObject::connect(editor, &JobEditor::fileDone, &window, [&window](const QString &message) {
        window.statusBar()->showMessage(message, 8000);
    });
    // New job starts clean, from the DDL training template: what was left in the editor (an
    // OpenPAI job tried a minute ago) is the editor's, submitted from there.
    QObject::connect(&window, &MainWindow::newJobRequested, editor, [&window] {
        const QJsonObject clean =
            QJsonDocument::fromJson(JobTemplates::text(u"ddl-training"_s).toUtf8()).object();
        if (Result<JobSpec> spec = JobSpecParser::parseWire(clean))
            window.openSubmitWizard(*spec);
    });
    QObject::connect(&window, &MainWindow::cloneRequested, editor,
                     [&window, editor](const QJsonObject &spec) {
                         editor->setText(QString::fromUtf8(QJsonDocument(spec).toJson()));
                         window.workspace()->setCurrentWidget(editor);
                     });
}

} // namespace ddl::desktop
