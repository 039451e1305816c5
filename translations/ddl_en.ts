<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>StopConfirmation</name>
    <message numerus="yes">
        <source> and %n more</source>
        <translation>
            <numerusform> and %n more</numerusform><numerusform> and %n more</numerusform></translation>
    </message>
    <message numerus="yes">
        <source>Stop %n job(s)?</source>
        <translation>
            <numerusform>Stop %n job?</numerusform><numerusform>Stop %n jobs?</numerusform></translation>
    </message>
    <message numerus="yes">
        <source>Stop %n job(s)? %1</source>
        <translation>
            <numerusform>Stop %n job? %1</numerusform><numerusform>Stop %n jobs? %1</numerusform></translation>
    </message>
    <message numerus="yes">
        <source>Stop job(s)</source>
        <translation>
            <numerusform>Stop job</numerusform><numerusform>Stop jobs</numerusform></translation>
    </message>
</context>
<context>
    <name>ddl::desktop::ArtifactBrowser</name>
    <message numerus="yes">
        <source>%n file(s)</source>
        <translation>
            <numerusform>%n file</numerusform><numerusform>%n files</numerusform></translation>
    </message>
</context>
<context>
    <name>ddl::desktop::ArtifactDownloader</name>
    <message numerus="yes">
        <source>Downloaded %n file(s) to %1</source>
        <translation>
            <numerusform>Downloaded %n file to %1</numerusform><numerusform>Downloaded %n files to %1</numerusform></translation>
    </message>
</context>
<context>
    <name>ddl::desktop::DatasetPage</name>
    <message numerus="yes">
        <source>%1 on the server (%n file(s), %2)</source>
        <translation>
            <numerusform>%1 on the server (%n file, %2)</numerusform><numerusform>%1 on the server (%n files, %2)</numerusform></translation>
    </message>
    <message numerus="yes">
        <source>To upload: %1 (%2 of %n file(s)); the server has the rest.</source>
        <translation>
            <numerusform>To upload: %1 (%2 of %n file); the server has the rest.</numerusform><numerusform>To upload: %1 (%2 of %n files); the server has the rest.</numerusform></translation>
    </message>
    <message numerus="yes">
        <source>%n file(s), %1.</source>
        <translation>
            <numerusform>%n file, %1.</numerusform><numerusform>%n files, %1.</numerusform></translation>
    </message>
</context>
<context>
    <name>ddl::desktop::DatasetUpload</name>
    <message numerus="yes">
        <source>Dataset %1: %n file(s), %2 sent.</source>
        <translation>
            <numerusform>Dataset %1: %n file, %2 sent.</numerusform><numerusform>Dataset %1: %n files, %2 sent.</numerusform></translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) sent.</source>
        <translation>
            <numerusform>%n file sent.</numerusform><numerusform>%n files sent.</numerusform></translation>
    </message>
</context>
<context>
    <name>ddl::desktop::DatasetsView</name>
    <message numerus="yes">
        <source>Sending %n file(s) the server does not have…</source>
        <translation>
            <numerusform>Sending %n file the server does not have…</numerusform><numerusform>Sending %n files the server does not have…</numerusform></translation>
    </message>
</context>
<context>
    <name>ddl::desktop::GitPage</name>
    <message numerus="yes">
        <source>Commit &lt;b&gt;%1&lt;/b&gt;: %2&lt;br&gt;%n file(s), %3 unpacked; the package is %4.</source>
        <translation>
            <numerusform>Commit &lt;b&gt;%1&lt;/b&gt;: %2&lt;br&gt;%n file, %3 unpacked; the package is %4.</numerusform><numerusform>Commit &lt;b&gt;%1&lt;/b&gt;: %2&lt;br&gt;%n files, %3 unpacked; the package is %4.</numerusform></translation>
    </message>
</context>
<context>
    <name>ddl::desktop::HomeView</name>
    <message numerus="yes">
        <source>%1 of %n worker(s) online. GPUs: %2 in use, %3 free, of %4.</source>
        <translation>
            <numerusform>%1 of %n worker online. GPUs: %2 in use, %3 free, of %4.</numerusform><numerusform>%1 of %n workers online. GPUs: %2 in use, %3 free, of %4.</numerusform></translation>
    </message>
</context>
<context>
    <name>ddl::desktop::ProjectPage</name>
    <message numerus="yes">
        <source>Read %1: job %2, %n task(s), dataset %3.</source>
        <translation>
            <numerusform>Read %1: job %2, %n task, dataset %3.</numerusform><numerusform>Read %1: job %2, %n tasks, dataset %3.</numerusform></translation>
    </message>
</context>
<context>
    <name>ddl::desktop::JobListView</name>
    <message numerus="yes">
        <source>%n job(s)</source>
        <translation>
            <numerusform>%n job</numerusform><numerusform>%n jobs</numerusform></translation>
    </message>
    <message numerus="yes">
        <source>Stop %n job(s)…</source>
        <translation>
            <numerusform>Stop %n job…</numerusform><numerusform>Stop %n jobs…</numerusform></translation>
    </message>
</context>
<context>
    <name>ddl::desktop::JobDetailView</name>
    <message numerus="yes">
        <source>attempt %1 (%n preempted)</source>
        <translation>
            <numerusform>attempt %1 (%n preempted)</numerusform><numerusform>attempt %1 (%n preempted)</numerusform></translation>
    </message>
</context>
<context>
    <name>ddl::desktop::LedgerPanel</name>
    <message numerus="yes">
        <source>Your %n worker(s) gave:</source>
        <translation>
            <numerusform>Your %n worker gave:</numerusform><numerusform>Your %n workers gave:</numerusform></translation>
    </message>
</context>
<context>
    <name>ddl::desktop::WorkersView</name>
    <message numerus="yes">
        <source>%1 of %n worker(s) online, %2 GPUs</source>
        <translation>
            <numerusform>%1 of %n worker online, %2 GPUs</numerusform><numerusform>%1 of %n workers online, %2 GPUs</numerusform></translation>
    </message>
</context>
<context>
    <name>FolderDrop</name>
    <message numerus="yes">
        <source>Drop one folder at a time (%n items were dropped).</source>
        <translation>
            <numerusform>Drop one folder at a time (%n item was dropped).</numerusform><numerusform>Drop one folder at a time (%n items were dropped).</numerusform></translation>
    </message>
</context>
</TS>